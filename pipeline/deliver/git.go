package deliver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Git runs git commands in one work tree.
type Git struct {
	// Dir is the work tree (any folder inside it).
	Dir string
	// Env is added to the environment of every git command (identity).
	Env []string
}

// GitError is a failed git command with what git printed on stderr.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

// Error names the command, how it failed and git's message.
func (e *GitError) Error() string {
	msg := "git " + strings.Join(e.Args, " ") + ": " + e.Err.Error()
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap returns the error from running the process.
func (e *GitError) Unwrap() error { return e.Err }

// Run runs git with args and returns its trimmed standard output.
func (g Git) Run(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, nil, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// RunInput runs git with stdin and returns its raw standard output.
func (g Git) RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return g.run(ctx, stdin, args...)
}

func (g Git) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	// No hook runs: what ralph-ci commits and pushes is decided here, not
	// by scripts the agent could have written into .git/hooks.
	full := append([]string{"-c", "core.quotepath=off", "-c", "advice.detachedHead=false", "-c", "core.hooksPath=" + os.DevNull}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.Dir
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0"), g.Env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return out, &GitError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return out, nil
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
