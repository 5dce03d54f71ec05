package deliver

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
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
	// Tree, when set, is the tree id the rotation's verification judged
	// (Session.Tree): the commit holds exactly it.
	Tree string
	// Head is the commit HEAD pointed at once the rotation's processes
	// were gone, as its change detection saw it ("" when unknown): when
	// it is the commit the last rotation left, the agent committed
	// nothing, and no git looks for its commits.
	Head string
	// Links are the submodules of the index as the change detection saw
	// it then, when LinksKnown: the commit stages them without a git
	// ls-files of its own.
	Links      []string
	LinksKnown bool
	// Staged are the paths (from the top of the work tree) whose index
	// entry differed from HEAD's as the change detection saw it, each
	// with its mode and id at HEAD ("" for both when HEAD has none), when
	// StagedKnown: with HEAD still Head, the commit learns what it holds
	// from the index, read before and after staging, without a git diff
	// --cached.
	Staged      []Change
	StagedKnown bool
	// Clean tells that the work tree is as the last delivery's commit
	// left it (HEAD still Head): there is nothing to commit, and no git
	// looks.
	Clean bool
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

// stage stages every change of the work tree except .ralph folders. git add
// would run git status inside every submodule in the index, under the
// submodule's own configuration (the agent's: its core.fsmonitor, ...), so
// submodules are left out of it and update-index, which only reads each
// one's HEAD, records their commits.
func stage(ctx context.Context, g Git, r Rotation) error {
	links := r.Links // relative to g.Dir, as git add and update-index read it
	if !r.LinksKnown {
		out, err := g.Run(ctx, "ls-files", "-z", "--stage", "--", ":(top)")
		if err != nil {
			return err
		}
		links = nil
		for _, entry := range strings.Split(out, "\x00") {
			if meta, p, ok := strings.Cut(entry, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
				links = append(links, p)
			}
		}
	}
	args := append([]string{"add", "--all", "--"}, commitPaths...)
	for _, p := range links {
		args = append(args, ":(literal,exclude)"+p)
	}
	if _, err := g.Run(ctx, args...); err != nil {
		return err
	}
	if len(links) == 0 {
		return nil
	}
	_, err := g.Run(ctx, append([]string{"update-index", "--add", "--remove", "--"}, links...)...)
	return err
}

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
	head, _, err := commitWork(ctx, g, id, r)
	return head, err
}

// Change is one path of a commit of the work tree: its mode and content
// id in the commit ("" for both when the commit deletes it).
type Change struct{ Path, Mode, ID string }

// commitWork is Commit, with what the commit changed.
func commitWork(ctx context.Context, g Git, id Identity, r Rotation) (string, []Change, error) {
	if r.Tree != "" {
		return commitTree(ctx, g, id, r)
	}
	before := indexBefore(g, r)
	if err := stage(ctx, g, r); err != nil {
		return "", nil, fmt.Errorf("stage the rotation's work: %w", err)
	}
	changes, ok := stagedChanges(g, r, before)
	if !ok {
		staged, err := g.Run(ctx, "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames")
		if err != nil {
			return "", nil, fmt.Errorf("list the rotation's work: %w", err)
		}
		if changes, err = parseRaw(staged); err != nil {
			return "", nil, err
		}
	}
	if len(changes) == 0 {
		return "", nil, nil
	}
	g.Env = append(g.Env, id.env()...)
	if _, err := g.RunInput(ctx, []byte(r.Message()), "-c", "commit.gpgsign=false", "commit", "--quiet", "--no-verify", "-F", "-"); err != nil {
		return "", nil, fmt.Errorf("commit the rotation's work: %w", err)
	}
	head, err := g.head()
	if err != nil {
		return "", nil, err
	}
	if wf, _ := classify(paths(changes)); len(wf) > 0 {
		return head, changes, &WorkflowError{Files: wf}
	}
	return head, changes, nil
}

// parseRaw reads git diff --raw -z --no-abbrev: ":srcmode dstmode srcid
// dstid status" NUL path NUL, for each path.
func parseRaw(out string) ([]Change, error) {
	var changes []Change
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if len(meta) != 5 || f[i+1] == "" {
			return nil, fmt.Errorf("list the rotation's work: unexpected entry %q", f[i])
		}
		c := Change{Path: f[i+1], Mode: meta[1], ID: meta[3]}
		if strings.Trim(c.ID, "0") == "" { // deleted
			c.Mode, c.ID = "", ""
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// paths are the changes' paths.
func paths(changes []Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Path
	}
	return out
}

// commitTree commits r.Tree, the tree that was verified, on HEAD (by
// id: whatever the work tree holds now stays out), and returns the new
// commit and what it changed, "" when the tree is HEAD's. A change to a
// workflow file is reported as in Commit.
func commitTree(ctx context.Context, g Git, id Identity, r Rotation) (string, []Change, error) {
	head, err := g.head()
	if err != nil {
		return "", nil, err
	}
	raw, err := g.Run(ctx, "diff-tree", "-r", "--raw", "-z", "--no-abbrev", "--no-renames", head, r.Tree)
	if err != nil {
		return "", nil, fmt.Errorf("list the rotation's work: %w", err)
	}
	changes, err := parseRaw(raw)
	if err != nil || len(changes) == 0 {
		return "", nil, err
	}
	cg := g
	cg.Env = append(append([]string{}, g.Env...), id.env()...)
	out, err := cg.RunInput(ctx, []byte(r.Message()), "commit-tree", "--no-gpg-sign", r.Tree, "-p", head, "-F", "-")
	if err != nil {
		return "", nil, fmt.Errorf("commit the verified tree %.12s: %w", r.Tree, err)
	}
	commit := strings.TrimSpace(string(out))
	if _, err := g.Run(ctx, "update-ref", "-m", "ralph-ci: the rotation's verified work", "HEAD", commit, head); err != nil {
		return "", nil, fmt.Errorf("commit the verified tree %.12s: %w", r.Tree, err)
	}
	if wf, _ := classify(paths(changes)); len(wf) > 0 {
		return commit, changes, &WorkflowError{Files: wf}
	}
	return commit, changes, nil
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
	workflows, ralph = classify(lines(out))
	return workflows, ralph, nil
}

// classify picks, among files relative to the repository's top, the
// workflow files and the .ralph files (but specs, which are the user's).
func classify(files []string) (workflows, ralph []string) {
	for _, f := range files {
		switch {
		case isWorkflow(f):
			workflows = append(workflows, f)
		case isRalph(f) && !strings.Contains(f, ".ralph/specs/"): // specs are the user's
			ralph = append(ralph, f)
		}
	}
	return workflows, ralph
}

// withTrailers is msg with the rotation's trailers added, as ralph-ci
// parses them (internal/git.Trailers): to its trailer block when it ends
// with one, else as a paragraph of their own. Git's trailer.* settings,
// which the agent can write, play no part.
func (r Rotation) withTrailers(msg string) string {
	msg = strings.TrimRight(msg, "\n \t")
	sep := "\n\n"
	if igit.Trailers(msg) != nil {
		sep = "\n"
	}
	_, trailers, _ := strings.Cut(r.Message(), "\n\nRalph-Spec: ")
	return msg + sep + "Ralph-Spec: " + trailers
}

// markAgentCommits gives the commits the agent made itself during the
// rotation (since..HEAD) the rotation's trailers, keeping their author,
// dates, message and content: a commit without a Ralph-Spec: trailer is
// taken for a person's, and the verifier guard trusts a person's commit as
// its baseline, so an agent that committed a weakened test or script must
// not pass for one. The commits are the rotation's own and not pushed yet,
// so rewriting them changes nothing anyone has; ralph-ci (id) is their
// committer.
func markAgentCommits(ctx context.Context, g Git, id Identity, since string, r Rotation) (marked int, err error) {
	if since == "" || r.Head == since { // HEAD did not move: no commit of the agent's
		return 0, nil
	}
	out, err := g.Run(ctx, "rev-list", "--reverse", "--topo-order", since+"..HEAD")
	if err != nil {
		return 0, fmt.Errorf("list the agent's commits: %w", err)
	}
	ids := lines(out)
	if len(ids) == 0 {
		return 0, nil
	}
	mapped := map[string]string{}
	committer := id.env()[2:] // GIT_COMMITTER_NAME and _EMAIL: ralph-ci rewrote them
	for _, c := range ids {
		info, err := g.Run(ctx, "log", "-1", "--format=%T%n%P%n%an%n%ae%n%ad", "--date=raw", c)
		if err != nil {
			return 0, fmt.Errorf("read the agent's commit %.12s: %w", c, err)
		}
		f := strings.SplitN(info, "\n", 5)
		if len(f) != 5 {
			return 0, fmt.Errorf("read the agent's commit %.12s: unexpected %q", c, info)
		}
		msg, err := g.RunInput(ctx, nil, "log", "-1", "--format=%B", c)
		if err != nil {
			return 0, fmt.Errorf("read the message of the agent's commit %.12s: %w", c, err)
		}
		marked := []byte(r.withTrailers(string(msg)))
		args := []string{"commit-tree", f[0]}
		for _, p := range strings.Fields(f[1]) {
			args = append(args, "-p", cmp.Or(mapped[p], p))
		}
		cg := g
		cg.Env = append(append([]string{}, g.Env...), "GIT_AUTHOR_NAME="+f[2], "GIT_AUTHOR_EMAIL="+f[3], "GIT_AUTHOR_DATE="+f[4])
		cg.Env = append(cg.Env, committer...)
		nid, err := cg.RunInput(ctx, marked, append(args, "-F", "-")...)
		if err != nil {
			return 0, fmt.Errorf("mark the agent's commit %.12s: %w", c, err)
		}
		mapped[c] = strings.TrimSpace(string(nid))
	}
	last := mapped[ids[len(ids)-1]]
	if _, err := g.Run(ctx, "update-ref", "-m", "ralph-ci: mark the agent's commits", "HEAD", last, ids[len(ids)-1]); err != nil {
		return 0, fmt.Errorf("mark the agent's commits: %w", err)
	}
	return len(ids), nil
}
