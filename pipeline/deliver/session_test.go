package deliver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var rot = Rotation{Spec: "spec.md", Stage: "coder", Iteration: 1, Status: "CONTINUE", Counter: "0/3"}

// TestPrepareChecksOutTheHeadBranch: from a depth-1 checkout detached on
// the merge ref, the loop works on the pull request's head branch.
func TestPrepareChecksOutTheHeadBranch(t *testing.T) {
	w := newWorld(t)
	dir := w.PRJob()
	tip, err := Prepare(context.Background(), Git{Dir: dir}, prTarget)
	if err != nil {
		t.Fatal(err)
	}
	if want := w.Rev("refs/heads/feature"); tip != want || git(t, dir, "rev-parse", "HEAD") != want {
		t.Fatalf("start %s, HEAD %s; want the head %s", tip, git(t, dir, "rev-parse", "HEAD"), want)
	}
	if b := git(t, dir, "symbolic-ref", "--short", "HEAD"); b != "feature" {
		t.Fatalf("on %q, want the branch feature", b)
	}
	if got := git(t, dir, "log", "--format=%s", "-1"); got != "the pull request's change" {
		t.Fatalf("HEAD is %q, want the head commit, not the merge", got)
	}
}

// TestJobsInARow: each job pushes its rotation as one commit with the
// trailers and no .ralph file, and the next fresh job resumes the state.
func TestJobsInARow(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()

	dir := w.PRJob()
	write(t, dir, ".ralph/state.json", `{"committed":"never read"}`) // as if committed in the checkout
	s := w.session(dir, prTarget)
	if changed, err := s.Start(ctx); err != nil || changed != nil {
		t.Fatalf("first job: changed %v, err %v", changed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ralph/state.json")); !os.IsNotExist(err) {
		t.Fatal("a .ralph/state.json found in the checkout was kept as state")
	}
	write(t, dir, "app.txt", "one\ntwo\nthree\nfour\n")
	write(t, dir, ".ralph/state.json", `{"iteration":1}`)
	write(t, dir, ".ralph/handoffs/spec.md", "next: five\n")
	write(t, dir, ".ralph/history/spec/001.log", "log")
	if foreign, err := s.AfterRotation(ctx, rot); err != nil || foreign != nil {
		t.Fatalf("foreign %v, err %v", foreign, err)
	}
	head := w.Rev("refs/heads/feature")
	if head != git(t, dir, "rev-parse", "HEAD") {
		t.Fatal("the rotation's commit was not pushed to the head branch")
	}
	if files := git(t, w.Bare, "show", "--name-only", "--format=", head); files != "app.txt" {
		t.Fatalf("the commit holds %q, want only app.txt", files)
	}
	trailers := git(t, w.Bare, "log", "-1", "--format=%(trailers:only,unfold)", head)
	for _, want := range []string{"Ralph-Spec: spec.md", "Ralph-Stage: coder", "Ralph-Iteration: 1", "Ralph-Status: CONTINUE"} {
		if !strings.Contains(trailers, want) {
			t.Errorf("trailers %q lack %q", trailers, want)
		}
	}
	if a := git(t, w.Bare, "log", "-1", "--format=%an <%ae>|%cn", head); a != "ralph-ci <ralph-ci@users.noreply.github.com>|ralph-ci" {
		t.Errorf("made by %q, want ralph-ci", a)
	}
	st := w.Rev(StateRef("feature"))
	if st == "" || w.Rev(st+"^1") != head {
		t.Fatalf("state ref %q does not describe the pushed head %s", st, head)
	}
	tree := git(t, w.Bare, "ls-tree", "-r", "--name-only", st)
	if tree != ".ralph/handoffs/spec.md\n.ralph/state.json" {
		t.Fatalf("the state commit holds %q, want state.json and the handoff only", tree)
	}

	// Job 2: a fresh checkout resumes from the state ref.
	dir2 := w.PRJob()
	s2 := w.session(dir2, prTarget)
	if changed, err := s2.Start(ctx); err != nil || changed != nil {
		t.Fatalf("second job: changed %v, err %v", changed, err)
	}
	if got := read(t, dir2, ".ralph/state.json"); got != `{"iteration":1}` {
		t.Fatalf("restored state %q", got)
	}
	if got := read(t, dir2, ".ralph/handoffs/spec.md"); got != "next: five\n" {
		t.Fatalf("restored handoff %q", got)
	}
	if err := s2.Finish(ctx); err != nil {
		t.Fatal(err)
	}

	// A human pushes; job 3 reconciles: the human's files count as changed.
	w.humanPush("feature", "other.txt", "human\n")
	dir3 := w.PRJob()
	s3 := w.session(dir3, prTarget)
	changed, err := s3.Start(ctx)
	if err != nil || !slices.Equal(changed, []string{"other.txt"}) {
		t.Fatalf("third job: changed %v, err %v; want [other.txt]", changed, err)
	}
}

// TestPushRaceRebases: a commit pushed between two rotations is rebased
// onto, named as foreign, and the branch stays linear.
func TestPushRaceRebases(t *testing.T) {
	w, dir, s := started(t)
	ctx := context.Background()
	theirs := w.humanPush("feature", "other.txt", "human\n")
	write(t, dir, "app.txt", "one\ntwo\nthree\nfour\n")
	foreign, err := s.AfterRotation(ctx, rot)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(foreign, []string{"other.txt"}) {
		t.Fatalf("foreign %v, want [other.txt]", foreign)
	}
	head := w.Rev("refs/heads/feature")
	if w.Rev(head+"^1") != theirs || head != git(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("origin's head %s is not the loop's commit on top of the human's %s", head, theirs)
	}
	if read(t, dir, "other.txt") != "human\n" {
		t.Fatal("the work tree lacks the human's file after the rebase")
	}
	// The next rotation takes none of the commits it was rebased onto for
	// the agent's own: the human's commit stays as pushed.
	write(t, dir, "app.txt", "one\ntwo\nthree\nfour\nfive\n")
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	if next := w.Rev("refs/heads/feature"); w.Rev(next+"^1") != head || w.Rev(next+"^2") != "" || w.Rev(head+"^1") != theirs {
		t.Fatalf("after the next rotation origin's head %s is not one commit on %s (on the human's %s)", next, head, theirs)
	}
}

// TestRebaseConflictRescues: a conflicting push meanwhile stops delivery;
// the work is on a rescue branch and the head branch keeps the human's.
func TestRebaseConflictRescues(t *testing.T) {
	w, dir, s := started(t)
	ctx := context.Background()
	theirs := w.humanPush("feature", "app.txt", "ONE\n")
	write(t, dir, "app.txt", "uno\n")
	_, err := s.AfterRotation(ctx, rot)
	var re *RescueError
	if !errors.As(err, &re) || !strings.HasPrefix(re.Where, "branch ralph-ci/rescue-feature-") {
		t.Fatalf("err %v, want a rescue branch", err)
	}
	if w.Rev("refs/heads/feature") != theirs {
		t.Fatal("the head branch was changed")
	}
	rescue := w.Rev("refs/heads/" + strings.TrimPrefix(re.Where, "branch "))
	if got := git(t, w.Bare, "show", rescue+":app.txt"); got != "uno" {
		t.Fatalf("rescue holds %q, want the loop's work", got)
	}
	if out := git(t, dir, "status", "--porcelain", "--untracked-files=no"); out != "" {
		t.Fatalf("a rebase was left under way: %q", out)
	}
}

// TestWorkflowChangeRefused: a change to .github/workflows/ is never
// pushed; it is kept in a bundle.
func TestWorkflowChangeRefused(t *testing.T) {
	w, dir, s := started(t)
	ctx := context.Background()
	before := w.Rev("refs/heads/feature")
	write(t, dir, ".github/workflows/ci.yml", "on: push\n")
	_, err := s.AfterRotation(ctx, rot)
	var wf *WorkflowError
	var re *RescueError
	if !errors.As(err, &wf) || !errors.As(err, &re) || !strings.Contains(re.Where, ".bundle") {
		t.Fatalf("err %v, want a refused workflow change saved in a bundle", err)
	}
	if w.Rev("refs/heads/feature") != before {
		t.Fatal("the workflow change was pushed")
	}
	bundle := strings.Fields(strings.TrimPrefix(re.Where, "the git bundle "))[0]
	git(t, dir, "bundle", "verify", "--quiet", bundle) // fails the test when the bundle is unusable
	if got := git(t, dir, "bundle", "list-heads", bundle); !strings.Contains(got, git(t, dir, "rev-parse", "HEAD")) {
		t.Fatalf("bundle heads %q lack the loop's commit", got)
	}
}

// TestOwnBranchReused: off a pull request, the loop makes a branch of its
// own, and the next run continues on it.
func TestOwnBranchReused(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	target, err := TargetOf(Event{DefaultBranch: "main"}, "", "main")
	if err != nil || target.Branch != "ralph-ci/main" {
		t.Fatalf("target %+v, err %v", target, err)
	}
	main := w.Rev("refs/heads/main")
	dir := w.Checkout(main, "refs/remotes/origin/main")
	s := w.session(dir, target)
	if _, err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "new.txt", "new\n")
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	pushed := w.Rev("refs/heads/ralph-ci/main")
	if pushed == "" || w.Rev(pushed+"^1") != main || w.Rev("refs/heads/main") != main {
		t.Fatalf("branch %q not on top of main %s (main now %s)", pushed, main, w.Rev("refs/heads/main"))
	}
	dir2 := w.Checkout(main, "refs/remotes/origin/main")
	s2 := w.session(dir2, target)
	if _, err := s2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if git(t, dir2, "rev-parse", "HEAD") != pushed {
		t.Fatal("the second run did not continue on its branch")
	}
}

// TestForkDeliversToABranchOfTheBase: a fork's pull request cannot be
// pushed to; its loop works on ralph-ci/pr-N of the base repository,
// started from refs/pull/N/head, and the next run continues there.
func TestForkDeliversToABranchOfTheBase(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	target, err := TargetOf(Event{PR: 7, HeadRef: "feature", HeadRepo: "someone/fork", BaseRepo: "owner/repo", DefaultBranch: "main"}, "", "")
	if err != nil || !target.Fork || !target.Own || target.Branch != "ralph-ci/pr-7" {
		t.Fatalf("target %+v, err %v", target, err)
	}
	dir := w.PRJob()
	s := w.session(dir, target)
	if _, err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "app.txt", "forked work\n")
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	pushed := w.Rev("refs/heads/ralph-ci/pr-7")
	if pushed == "" || pushed != s.Head() || w.Rev(StateRef(target.Branch)) == "" {
		t.Fatalf("ralph-ci/pr-7 at %q, state %q: want the loop's work and state on the base's branch", pushed, w.Rev(StateRef(target.Branch)))
	}
	// The next run continues on that branch.
	if start, err := Prepare(ctx, Git{Dir: w.PRJob()}, target); err != nil || start != pushed {
		t.Fatalf("the next run starts at %q (%v), want %s", start, err, pushed)
	}
}

// TestCommitModeNeverPushes: commit mode commits on the current branch.
func TestCommitModeNeverPushes(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	dir := w.PRJob()
	s := w.session(dir, prTarget)
	s.Push = false
	if _, err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	before := w.Rev("refs/heads/feature")
	write(t, dir, "app.txt", "committed\n")
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	if git(t, dir, "log", "-1", "--format=%(trailers:key=Ralph-Spec,valueonly)") != "spec.md" {
		t.Fatal("no commit with the trailers")
	}
	if err := s.Finish(ctx); err != nil || w.Rev("refs/heads/feature") != before {
		t.Fatalf("commit mode pushed (err %v)", err)
	}
	if _, err := s.AfterRotation(ctx, rot); err != nil || git(t, dir, "rev-list", "--count", before+"..HEAD") != "1" {
		t.Fatalf("a rotation without changes made a commit (err %v)", err)
	}
}

// TestAgentCommitsKept: the agent's own commits are pushed with their
// author, message and content, marked with the rotation's trailers,
// ralph-ci's commit holding what it left uncommitted; an agent commit
// holding a .ralph/ file is refused and rescued.
func TestAgentCommitsKept(t *testing.T) {
	w, dir, s := started(t)
	ctx := context.Background()
	write(t, dir, "mine.txt", "agent\n")
	git(t, dir, "add", "mine.txt")
	git(t, dir, "commit", "--quiet", "-m", "agent: its own commit")
	write(t, dir, "loose.txt", "left\n")
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	log := git(t, w.Bare, "log", "--format=%an|%s", "-2", "refs/heads/feature")
	if log != "ralph-ci|ralph-ci: spec.md, coder iteration 1: CONTINUE\nHuman|agent: its own commit" {
		t.Fatalf("origin's head:\n%s", log)
	}
	// The agent's commit carries the rotation's trailers, so that nothing
	// takes it for a person's (the verifier guard trusts those), and keeps
	// its author and content.
	agent := git(t, w.Bare, "log", "-1", "--format=%(trailers:key=Ralph-Spec,valueonly)|%an <%ae>|%cn", "refs/heads/feature~1")
	if agent != "spec.md\n|Human <human@example.com>|ralph-ci" {
		t.Errorf("the agent's commit as pushed: %q; want the Ralph-Spec trailer, its author, ralph-ci as committer", agent)
	}
	if files := git(t, w.Bare, "show", "--name-only", "--format=", "refs/heads/feature~1"); files != "mine.txt" {
		t.Errorf("the agent's commit holds %q, want mine.txt", files)
	}
	before := w.Rev("refs/heads/feature")
	write(t, dir, ".ralph/state.json", "{}")
	git(t, dir, "add", "-f", ".ralph/state.json")
	git(t, dir, "commit", "--quiet", "-m", "agent: commits the state")
	_, err := s.AfterRotation(ctx, rot)
	var re *RescueError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), ".ralph/state.json") || w.Rev("refs/heads/feature") != before {
		t.Fatalf("err %v: want the .ralph/ commit refused and rescued", err)
	}
}

// TestPrepareReachesTheTrustedCommit: after jobs that pushed several of
// the loop's commits, a fresh depth-1 checkout still holds the commit a
// person made last (the verifier guard's trusted baseline): Prepare
// deepens the head branch's history past the loop's own commits.
func TestPrepareReachesTheTrustedCommit(t *testing.T) {
	w, dir, s := started(t)
	ctx := context.Background()
	for i, content := range []string{"1\n", "2\n", "3\n"} {
		write(t, dir, "app.txt", content)
		r := rot
		r.Iteration = i + 1
		if _, err := s.AfterRotation(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	dir2 := w.PRJob()
	if _, err := Prepare(ctx, Git{Dir: dir2}, prTarget); err != nil {
		t.Fatal(err)
	}
	subjects := strings.Split(git(t, dir2, "log", "--format=%s", "HEAD"), "\n")
	if len(subjects) < 4 || subjects[3] != "the pull request's change" {
		t.Fatalf("history after Prepare: %q; want the 3 loop commits, then the person's head commit", subjects)
	}
}
