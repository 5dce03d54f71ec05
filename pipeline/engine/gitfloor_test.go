package engine

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// maxGitPerRotation is what a delivery rotation may cost in git
// processes, its state travelling with it (issue 34: git's floor is four,
// status, add, commit and push).
const maxGitPerRotation = 4

// counting is a pr-mode session that notes how many git processes ralph-ci
// had started when each rotation's delivery was done.
type counting struct {
	*deliver.Session
	at []int64
}

func (c *counting) AfterRotation(ctx context.Context, r deliver.Rotation) ([]string, error) {
	defer func() { c.at = append(c.at, igit.Runs.Load()) }()
	return c.Session.AfterRotation(ctx, r)
}

// TestDeliveryRotationStaysAtGitsFloor: from one rotation's delivery to
// the next one's, through the agent's work, its change detection and
// judging, the commit, the state commit and the push of both, ralph-ci
// starts at most maxGitPerRotation git processes, and the work and the
// state still reach origin. A rotation that changed nothing (every third)
// runs one: the push of its state commit (which ralph-ci writes itself).
func TestDeliveryRotationStaysAtGitsFloor(t *testing.T) {
	files := map[string]string{
		"ralph.yaml": `agents:
  coder: {command: [sh, -c, 'cat >/dev/null; [ $((RALPH_ITERATION % 3)) = 0 ] || echo "$RALPH_ITERATION" >> work.txt; echo RALPH_STATUS: CONTINUE']}
stages: {coder: {max_iterations: 100}, reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
`,
		"specs/a.spec.md": "# A\n",
		".gitignore":      ".ralph/\n",
	}
	o := ghorigin.New(t, "main", "feature", 7, files, map[string]string{"README.md": "hello\n"})
	dir := o.PRJob()
	g := deliver.Git{Dir: dir}
	target := deliver.Target{Branch: "feature", PR: 7, DefaultBranch: "main"}
	if _, err := deliver.Prepare(context.Background(), g, target); err != nil {
		t.Fatal(err)
	}
	s := &counting{Session: &deliver.Session{Git: g, StateDir: filepath.Join(dir, ".ralph"), Target: target, Push: true, Reports: t.TempDir()}}
	before, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	packsBefore := len(before)
	p, err := project.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	const rotations = 6
	var log bytes.Buffer
	if _, err := Run(context.Background(), Options{Project: p, MaxRotations: rotations, Log: zerolog.New(&log), Deliverer: s}); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if len(s.at) != rotations {
		t.Fatalf("%d rotations delivered, want %d\n%s", len(s.at), rotations, log.String())
	}
	for i := 1; i < len(s.at); i++ {
		n := s.at[i] - s.at[i-1]
		t.Logf("rotation %d: %d git processes", i+1, n)
		if (i+1)%3 == 0 && n > 1 {
			t.Errorf("rotation %d changed nothing, yet ran %d git processes (want 1: the push of its state commit)", i+1, n)
		}
		if n > maxGitPerRotation {
			t.Errorf("rotation %d ran %d git processes, want at most %d", i+1, n, maxGitPerRotation)
		}
	}
	head := o.Rev("refs/heads/feature")
	if got := ghorigin.Git(t, o.Bare, "show", head+":work.txt"); got != "1\n2\n4\n5" {
		t.Errorf("origin's work.txt is %q, want the lines of the four rotations that wrote one", got)
	}
	if st := o.Rev(deliver.StateRef("feature")); st == "" || o.Rev(st+"^1") != head {
		t.Errorf("the state ref %q does not describe origin's head %s", st, head)
	}
	// The state commits' packs do not pile up: one stays, the last one
	// pushed, which the next state commit would name as its parent.
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) > packsBefore+1 {
		t.Errorf("%d packs in the checkout after %d rotations, %d before: %v", len(packs), rotations, packsBefore, packs)
	}
}
