package pullrequest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// One progress comment per pull request, through the binary: three runs
// keep one comment, edited in place; with the default interval a run of
// fast rotations edits it at most twice (its first rotation and its end,
// counted requests); with no interval once per rotation; the checkpoint
// stays its own comment; github.progress_comment: false turns it off.
func TestProgressComment(t *testing.T) {
	bin := e2e.RalphBinary(t)
	w := newPRWorld(t, bin)
	w.ExtraEnv = append(w.ExtraEnv, "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=7")
	edits := func() int {
		return w.Srv.Seen("PATCH", `/issues/comments/`) + w.Srv.Seen("POST", `/issues/2/comments$`)
	}

	// Two specs, 3/3 each: six rotations in all.
	before := edits()
	w.Ralph(3, "run", "--max-rotations", "4") // run 1: 4 fast rotations
	if n := edits() - before; n != 2 {
		t.Fatalf("run 1 wrote the progress comment %d times, want 2 (its first rotation, then nothing for 10 s, then the end)", n)
	}
	before = edits()
	w.Ralph(3, "run", "--max-rotations", "1", "--progress-interval", "0") // run 2: each rotation, and the end
	if n := edits() - before; n != 2 {
		t.Fatalf("run 2 wrote the progress comment %d times, want 2 (its rotation and the end)", n)
	}
	w.Ralph(6, "run") // run 3: the last rotation, the checkpoint presented
	all := w.ProgressOf()
	if len(all) != 1 {
		t.Fatalf("%d progress comments after three runs, want 1", len(all))
	}
	e2e.Contains(t, "the progress comment", all[0].Body, "ralph-ci loop: ended: awaiting_human", "| `specs/a.spec.md` | 3/3 | coder | DONE | no | verify |",
		"Checkpoints waiting for a person: `specs/a.spec.md`", "[The workflow run](https://github.com/Codertocat/Hello-World/actions/runs/7)", "Rotations: 1")
	w.Checkpoint() // the checkpoint is its own comment

	off := newPRWorld(t, bin, map[string]string{"ralph.yaml": strings.Replace(e2e.PRRepoFiles["ralph.yaml"], "github: {approvers: [carol]}", "github: {approvers: [carol], progress_comment: false}", 1)})
	off.Ralph(6, "run")
	if n := len(off.ProgressOf()); n != 0 {
		t.Fatalf("github.progress_comment: false: %d progress comments", n)
	}
}

// The progress comment shows the pull request's spend, not only the
// run's: its loop's state travels with the pull request (delivery pr,
// each job a fresh checkout), and so do its rotations and cost, shown
// against budgets.per_pull_request. Two workflow runs of one rotation
// each ($0.75, 187,500 tokens), counted edits: each run edits the one
// comment twice (its rotation and its end, no interval).
func TestProgressCommentShowsThePullRequestsSpend(t *testing.T) {
	files := map[string]string{
		"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], format: claude, timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {cost_usd: 1.0, per_pull_request: {cost_usd: 2.0, tokens: 1000000}}
`,
		"specs/a.spec.md": "# A\n\nDo it.\n",
		"agent.sh":        e2e.SpendingAgent,
		".gitignore":      ".ralph/\n",
	}
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	edits := func() int {
		return w.Srv.Seen("PATCH", `/issues/comments/`) + w.Srv.Seen("POST", `/issues/2/comments$`)
	}
	for run, want := range [][]string{
		{"Rotations: 1 of 1 this run · 1 for the pull request", "Cost: $0.75 of $1.00 this run · $0.75 of $2.00 for the pull request (187500 tokens of 1000000)"},
		{"Rotations: 1 of 1 this run · 2 for the pull request", "Cost: $0.75 of $1.00 this run · $1.50 of $2.00 for the pull request (375000 tokens of 1000000)"},
	} {
		w.Job("", "")
		before := edits()
		w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1", "--progress-interval", "0")
		if n := edits() - before; n != 2 {
			t.Fatalf("run %d wrote the progress comment %d times, want 2 (its rotation and the end)", run+1, n)
		}
		all := w.ProgressOf()
		if len(all) != 1 {
			t.Fatalf("run %d: %d progress comments, want 1", run+1, len(all))
		}
		e2e.Contains(t, fmt.Sprintf("the progress comment after run %d", run+1), all[0].Body, want...)
	}
}
