package deliver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Identity is the author and committer of ralph-ci's commits.
type Identity struct{ Name, Email string }

// DefaultIdentity is used when the config names none.
var DefaultIdentity = Identity{Name: "ralph-ci", Email: "ralph-ci@users.noreply.github.com"}

// env returns the environment that makes git use the identity.
func (id Identity) env() []string {
	if id.Name == "" || id.Email == "" {
		id = DefaultIdentity
	}
	return []string{"GIT_AUTHOR_NAME=" + id.Name, "GIT_AUTHOR_EMAIL=" + id.Email,
		"GIT_COMMITTER_NAME=" + id.Name, "GIT_COMMITTER_EMAIL=" + id.Email}
}

// Rotation describes the rotation a commit holds.
type Rotation struct {
	Spec      string // the spec's path
	Stage     string
	Iteration int
	Status    string // the verdict's status (DONE, CONTINUE, REJECTED…)
	Counter   string // the spec's counter after the rotation, as "2/3"
}

// Message is the commit message of a rotation, with trailers a tool can
// read (git interpret-trailers, git log --format=%(trailers)).
func (r Rotation) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ralph-ci: %s, %s iteration %d: %s\n\n", r.Spec, r.Stage, r.Iteration, r.Status)
	fmt.Fprintf(&b, "Work of the %s agent on %s, committed by ralph-ci after the rotation.\n\n", r.Stage, r.Spec)
	fmt.Fprintf(&b, "Ralph-Spec: %s\nRalph-Stage: %s\nRalph-Iteration: %s\nRalph-Status: %s\n", r.Spec, r.Stage, strconv.Itoa(r.Iteration), r.Status)
	if r.Counter != "" {
		fmt.Fprintf(&b, "Ralph-Counter: %s\n", r.Counter)
	}
	return b.String()
}

// Pathspecs of what ralph-ci commits: the whole work tree but any .ralph
// folder (state, logs and reports never enter the pull request).
var commitPaths = []string{":(top)", ":(top,exclude,glob)**/.ralph/**"}

// WorkflowError refuses a change under .github/workflows/: the job's token
// cannot push it, and a loop should not change its own CI.
type WorkflowError struct{ Files []string }

// Error names the files.
func (e *WorkflowError) Error() string {
	return fmt.Sprintf("the work changes GitHub workflow files, which ralph-ci never pushes: %s (the work is kept in the rescue bundle)", strings.Join(e.Files, ", "))
}

// isWorkflow tells whether a path relative to the repository's top is a
// workflow file.
func isWorkflow(p string) bool { return strings.HasPrefix(p, ".github/workflows/") }

// isRalph tells whether a path relative to the repository's top is inside
// a .ralph folder.
func isRalph(p string) bool {
	return strings.HasPrefix(p, ".ralph/") || strings.Contains(p, "/.ralph/")
}

// Commit stages every change of the work tree except .ralph folders and
// commits it as the rotation, made by id. It returns the new commit, ""
// when nothing changed. A change to a workflow file is committed too (so
// that the rescue keeps it) and reported as a *WorkflowError.
func Commit(ctx context.Context, g Git, id Identity, r Rotation) (string, error) {
	args := append([]string{"add", "--all", "--"}, commitPaths...)
	if _, err := g.Run(ctx, args...); err != nil {
		return "", fmt.Errorf("stage the rotation's work: %w", err)
	}
	staged, err := g.Run(ctx, "diff", "--cached", "--name-only", "--no-renames")
	if err != nil {
		return "", fmt.Errorf("list the rotation's work: %w", err)
	}
	files := lines(staged)
	if len(files) == 0 {
		return "", nil
	}
	g.Env = append(g.Env, id.env()...)
	if _, err := g.RunInput(ctx, []byte(r.Message()), "-c", "commit.gpgsign=false", "commit", "--quiet", "--no-verify", "-F", "-"); err != nil {
		return "", fmt.Errorf("commit the rotation's work: %w", err)
	}
	head, err := g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	var wf []string
	for _, f := range files {
		if isWorkflow(f) {
			wf = append(wf, f)
		}
	}
	if len(wf) > 0 {
		return head, &WorkflowError{Files: wf}
	}
	return head, nil
}

// forbidden lists the files of the commits base..head that ralph-ci must
// not push: workflow files and .ralph files (the agent may have committed
// them itself).
func forbidden(ctx context.Context, g Git, base, head string) (workflows, ralph []string, err error) {
	if base == head {
		return nil, nil, nil
	}
	out, err := g.Run(ctx, "diff", "--name-only", "--no-renames", base, head)
	if err != nil {
		return nil, nil, fmt.Errorf("list the files of the loop's commits: %w", err)
	}
	for _, f := range lines(out) {
		switch {
		case isWorkflow(f):
			workflows = append(workflows, f)
		case isRalph(f) && !strings.Contains(f, ".ralph/specs/"): // specs are the user's
			ralph = append(ralph, f)
		}
	}
	return workflows, ralph, nil
}
