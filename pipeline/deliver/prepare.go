package deliver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// Target says which branch the loop works on.
type Target struct {
	// Branch is the branch the loop works on and pushes to.
	Branch string
	// PR is the pull request's number (0 off a pull request).
	PR int
	// Fork is true for a pull request from another repository, which the
	// job's token cannot push to: the loop works on a branch of the base
	// repository, ralph-ci/pr-N (Own), started from refs/pull/N/head, and
	// a pull request is opened from it.
	Fork bool
	// Own is true for a branch of ralph-ci's own (off a pull request): it
	// is created from the checked-out commit when origin has none yet.
	Own bool
	// DefaultBranch is never pushed to.
	DefaultBranch string
	// ForkURL, when set, is the fork's clone URL (ForkPush): its owner
	// lets maintainers push and a push token can, so the work goes to the
	// fork's branch ForkBranch, the pull request's own head, and the
	// state to the base repository (StateRef(Branch)). A refused push
	// falls back to Branch of the base repository, with a pull request
	// opened from it.
	ForkURL, ForkBranch string
}

// ForkPush is t (a fork's pull request's target) delivering to the
// fork's own branch when that can be done, else t unchanged and why
// not: the fork's owner lets maintainers push to it (ev's
// maintainer_can_modify), a push token is given (the job's token can
// push to the base repository only), and the fork's clone URL is on the
// server the token is for (serverURL, GITHUB_SERVER_URL), so that the
// token goes nowhere else.
func ForkPush(t Target, ev Event, pushToken bool, serverURL string) (Target, string) {
	where := fmt.Sprintf("the work goes to %s of the base repository, with a pull request opened from it", t.Branch)
	server := strings.TrimSuffix(serverURL, "/") + "/"
	switch {
	case !t.Fork:
		return t, ""
	case !ev.MaintainerCanModify:
		return t, fmt.Sprintf("pull request #%d: the fork %s does not allow maintainers to push to its branch: %s", ev.PR, ev.HeadRepo, where)
	case !pushToken:
		return t, fmt.Sprintf("pull request #%d: the fork %s allows maintainers to push, but no push-token is given (the job's token cannot push to another repository): %s", ev.PR, ev.HeadRepo, where)
	case serverURL == "" || !strings.HasPrefix(ev.HeadCloneURL, server):
		return t, fmt.Sprintf("pull request #%d: the fork's clone URL %q is not on %s, where the push-token goes: %s", ev.PR, ev.HeadCloneURL, server, where)
	case checkBranchName(ev.HeadRef) != nil:
		return t, fmt.Sprintf("pull request #%d: the fork's branch %q: %v: %s", ev.PR, ev.HeadRef, checkBranchName(ev.HeadRef), where)
	}
	t.ForkURL, t.ForkBranch, t.Own = ev.HeadCloneURL, ev.HeadRef, false
	return t, ""
}

// DefaultBranchPrefix starts the names of ralph-ci's own branches.
const DefaultBranchPrefix = "ralph-ci/"

// TargetOf picks the branch for an event: the pull request's head branch,
// or off a pull request the configured branch, by default
// ralph-ci/<base> where base is the branch the workflow ran on (refName,
// GITHUB_REF_NAME), else the default branch: the same name in every run,
// so that re-runs continue on it.
func TargetOf(ev Event, configured, refName string) (Target, error) {
	t := Target{PR: ev.PR, DefaultBranch: ev.DefaultBranch}
	switch {
	case ev.PR > 0 && ev.Fork():
		t.Fork, t.Own, t.Branch = true, true, "ralph-ci/pr-"+strconv.Itoa(ev.PR)
	case ev.PR > 0:
		if ev.HeadRef == "" {
			return t, fmt.Errorf("pull request #%d: its head branch is unknown (the event payload has none)", ev.PR)
		}
		t.Branch = ev.HeadRef
	default:
		t.Own, t.Branch = true, configured
		if t.Branch == "" {
			base := refName
			if base == "" || strings.HasPrefix(base, DefaultBranchPrefix) {
				base = ev.DefaultBranch
			}
			if base == "" {
				base = "main"
			}
			t.Branch = DefaultBranchPrefix + sanitize(base)
		}
	}
	if err := checkBranchName(t.Branch); err != nil {
		return t, err
	}
	if !t.Fork && t.DefaultBranch != "" && t.Branch == t.DefaultBranch {
		return t, fmt.Errorf("delivery branch %q is the default branch: ralph-ci never pushes there (set delivery.branch to another name)", t.Branch)
	}
	return t, nil
}

var unsafeRef = lazyregexp.New(`[^A-Za-z0-9._/-]+`)

// sanitize makes s usable inside a branch name.
func sanitize(s string) string {
	return strings.Trim(unsafeRef.ReplaceAllString(s, "-"), "-/.")
}

// checkBranchName refuses names git would refuse or read as options.
func checkBranchName(b string) error {
	if b == "" || strings.HasPrefix(b, "-") || strings.Contains(b, "..") || strings.ContainsAny(b, " ~^:?*[\\") ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".lock") || strings.HasPrefix(b, "refs/") {
		return fmt.Errorf("delivery branch %q: not a valid branch name", b)
	}
	return nil
}

// Prepare fetches the target branch and checks it out in the work tree,
// whatever the checkout was (a depth-1 detached merge ref, as
// actions/checkout leaves it). It returns the commit the loop starts from.
func Prepare(ctx context.Context, g Git, t Target) (string, error) {
	var tip string
	forkBranch := false // the base repository's branch of a fork's loop exists
	if t.Fork && t.ForkURL == "" {
		id, ok, err := g.fetchBranch(ctx, t.Branch, 1)
		if err != nil {
			return "", err
		}
		forkBranch, tip = ok, id
	}
	switch {
	case forkBranch: // a later run continues on it
	case t.Fork: // the pull request's head, the fork's branch as GitHub mirrors it
		ref := fmt.Sprintf("refs/pull/%d/head", t.PR)
		if _, err := g.Run(ctx, "-c", "protocol.version=2", "fetch", "--no-tags", "--quiet", "--depth=1", "origin", "+"+ref+":refs/remotes/origin/"+ref[len("refs/"):]); err != nil {
			return "", fmt.Errorf("fetch the head of pull request #%d (%s): %w", t.PR, ref, err)
		}
		id, _, err := g.revParse(ctx, "refs/remotes/origin/"+ref[len("refs/"):])
		if err != nil {
			return "", err
		}
		tip = id
	default:
		id, ok, err := g.fetchBranch(ctx, t.Branch, 1)
		if err != nil {
			return "", err
		}
		if !ok && !t.Own {
			return "", fmt.Errorf("pull request #%d: origin has no branch %s", t.PR, t.Branch)
		}
		if !ok { // a branch of its own, created from the checked-out commit
			if tip, err = g.Run(ctx, "rev-parse", "HEAD"); err != nil {
				return "", fmt.Errorf("delivery branch %s: %w", t.Branch, err)
			}
			break
		}
		tip = id
	}
	if _, err := g.Run(ctx, "checkout", "--quiet", "-B", t.Branch, tip); err != nil {
		return "", fmt.Errorf("check out the delivery branch %s at %.12s: %w", t.Branch, tip, err)
	}
	if !t.Fork {
		if err := g.deepenPastLoop(ctx, t.Branch); err != nil {
			return "", err
		}
	}
	return tip, nil
}

// Bounds of deepenPastLoop: commits fetched per step, and in all.
const (
	deepenStep     = 50
	maxLoopHistory = 1000
	loopTrailerKey = "Ralph-Spec"
)

// deepenPastLoop fetches more of branch's history while every commit the
// shallow checkout holds is one of the loop's own (a Ralph-Spec: trailer),
// so that the commit the loop started from, the verifiers' trusted
// baseline, is there to read: a depth-1 fetch of a branch the loop pushed
// to holds only the loop's last commit. It stops at the first commit a
// person made, at the branch's root, or after maxLoopHistory commits.
func (g Git) deepenPastLoop(ctx context.Context, branch string) error {
	for depth := 1; ; depth += deepenStep {
		person, err := g.personOnFirstParents(ctx)
		if err != nil {
			return fmt.Errorf("read the history of %s: %w", branch, err)
		}
		if person {
			return nil // a commit the loop did not make
		}
		shallow, err := g.Run(ctx, "rev-parse", "--is-shallow-repository")
		if err != nil || shallow != "true" || depth >= maxLoopHistory {
			return nil // the whole history, or enough of it: none to find
		}
		if _, err := g.Run(ctx, "-c", "protocol.version=2", "fetch", "--no-tags", "--quiet",
			"--deepen="+strconv.Itoa(deepenStep), "origin", "+refs/heads/"+branch+":"+remoteRef(branch)); err != nil {
			return fmt.Errorf("fetch more history of %s (the loop's trusted commit): %w", branch, err)
		}
	}
}

// personOnFirstParents tells whether HEAD's first-parent line, as far as
// the checkout holds it (maxLoopHistory commits at most), has a commit
// the loop did not make: one without a Ralph-Spec: trailer. Commits are
// read checked against their ids and their trailers parsed by ralph-ci.
func (g Git) personOnFirstParents(ctx context.Context) (bool, error) {
	id, ok, err := g.revParse(ctx, "HEAD")
	if err != nil || !ok {
		return false, err
	}
	objs, err := igit.OpenObjects(ctx, g.Dir, 64<<20)
	if err != nil {
		return false, err
	}
	defer objs.Close()
	for i := 0; i < maxLoopHistory && id != ""; i++ {
		c, err := objs.Commit(id)
		if errors.Is(err, igit.ErrMissing) {
			return false, nil // past a shallow boundary
		}
		if err != nil {
			return false, err
		}
		if len(igit.Trailers(c.Message)[loopTrailerKey]) == 0 {
			return true, nil
		}
		id = ""
		if len(c.Parents) > 0 {
			id = c.Parents[0]
		}
	}
	return false, nil
}
