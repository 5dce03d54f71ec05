package deliver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
)

// Git runs git commands in one work tree.
type Git struct {
	// Dir is the work tree (any folder inside it).
	Dir string
	// Env is added to the environment of every git command (identity).
	Env []string
}

// GitError is a failed git command with what git printed on stderr.
type GitError = igit.Error

// Run runs git with args and returns its trimmed standard output.
func (g Git) Run(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, nil, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// RunInput runs git with stdin and returns its raw standard output.
func (g Git) RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return g.run(ctx, stdin, args...)
}

// run runs git through the doorway (internal/git), which owns the
// environment and the configuration git sees: no hook, no configuration
// of the agent's.
func (g Git) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	c := igit.Command{Dir: g.Dir, Args: append([]string{"-c", "advice.detachedHead=false"}, args...), Env: g.Env}
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	out, err := c.Run(ctx)
	var ge *igit.Error
	if errors.As(err, &ge) {
		ge.Args = args
	}
	return out, err
}

// head is the commit HEAD points at, read as data (igit.Head): what
// git rev-parse HEAD prints, with no process.
func (g Git) head() (string, error) {
	id, err := igit.Head(g.Dir)
	if err == nil && id == "" {
		err = fmt.Errorf("HEAD of %s points at no commit", g.Dir)
	}
	return id, err
}

// revParse resolves rev to a commit id; ok is false when it does not exist.
func (g Git) revParse(ctx context.Context, rev string) (id string, ok bool, err error) {
	out, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.Stderr == "" {
			return "", false, nil
		}
		return "", false, err
	}
	return out, true, nil
}

// lines splits git's output into non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// remoteRef is the remote-tracking ref ralph-ci fetches a branch into.
func remoteRef(branch string) string { return "refs/remotes/origin/" + branch }

// fetchBranch fetches branch from origin into its remote-tracking ref, with
// the given depth (0: as deep as the repository already is). It returns the
// tip, ok false when origin has no such branch.
func (g Git) fetchBranch(ctx context.Context, branch string, depth int) (string, bool, error) {
	args := []string{"-c", "protocol.version=2", "fetch", "--no-tags", "--quiet"}
	if depth > 0 {
		args = append(args, fmt.Sprintf("--depth=%d", depth))
	}
	args = append(args, "origin", "+refs/heads/"+branch+":"+remoteRef(branch))
	if _, err := g.Run(ctx, args...); err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
			return "", false, nil
		}
		return "", false, fmt.Errorf("fetch branch %s: %w", branch, err)
	}
	id, ok, err := g.revParse(ctx, remoteRef(branch))
	if err == nil && !ok {
		err = fmt.Errorf("fetch branch %s: %s missing after the fetch", branch, remoteRef(branch))
	}
	return id, ok, err
}
