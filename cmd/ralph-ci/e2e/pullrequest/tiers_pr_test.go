package pullrequest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/schema"
)

// wantCheckpoint is the exact text of section 3 for specs/a.spec.md: the
// criteria of both contracts in one checkpoint (verify > auto).
const wantCheckpoint = `ALL TESTS PASSING -- Slice cart-totals: Totals

Please verify the output matches your intent.

Acceptance criteria:
  [ ] The total has two decimals
  [ ] The CSV export has the total

Steps to verify:
  1. Open /cart and read the total

Does this match what you intended?
  1) Yes -- mark complete and continue
  2) No -- I'll describe what's wrong
  3) Partially -- some criteria met, I'll describe the gaps
`

// newPRWorld makes the repository (PRRepoFiles, then extra files) and the
// fake GitHub with its pull request at the repository's head. The pull
// request's base has PRRepoFiles' ralph.yaml: who may approve is read
// from there (extra files are the pull request's changes).
func newPRWorld(t *testing.T, bin string, extra ...map[string]string) *e2e.PRWorld {
	t.Helper()
	w := &e2e.PRWorld{T: t, Bin: bin, Dir: t.TempDir()}
	files := map[string]string{}
	for _, m := range append([]map[string]string{e2e.PRRepoFiles}, extra...) {
		for name, content := range m {
			files[name] = content
		}
	}
	files["ralph.yaml"] = e2e.WithRecords(files["ralph.yaml"])
	for name, content := range files {
		p := filepath.Join(w.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e2e.Git(t, w.Dir, "init", "-q")
	w.Commit("init")
	w.StartGitHub(e2e.PRRepoFiles["ralph.yaml"])
	return w
}

func TestTiersOnPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	extraSpec := map[string]string{"specs/c.spec.md": "---\nid: receipts\ntitle: Receipts\n---\n# Receipts\n"}
	type story struct {
		name  string
		files []map[string]string // extra files of the world
		run   func(*testing.T, *e2e.PRWorld)
	}
	stories := []story{
		{name: "approve by reaction; unauthorized and bot answers ignored; one comment", run: prApproveByReaction},
		{name: "approve by reply", run: prApproveByReply},
		{name: "several checkpoints: a reply applies to the one it quotes or names", files: []map[string]string{extraSpec}, run: prSeveral},
		{name: "a rejection read by check in another job sends the spec back", run: prRejectedElsewhere},
		{name: "a deleted checkpoint comment is posted again", run: prDeleted},
		{name: "LogCorruption, CounterOverflow and EmptyRejectionLog from the marker", run: prLogCorruption},
		{name: "a push makes approvals stale", run: prStale},
		{name: "429 and 5xx are retried, a failed create is not repeated", run: prRetries},
		{name: "a token that may not write falls back to annotations and the summary", run: prReadOnly},
		{name: "check --wait: an answer during the wait", run: prWaitAnswered},
		{name: "check --wait: no answer within the bound", run: prWaitBound},
	}
	for _, choice := range []string{"1", "2", "3"} {
		stories = append(stories, story{name: "three rejections escalate, option " + choice,
			run: func(t *testing.T, w *e2e.PRWorld) { prEscalate(t, w, choice) }})
	}
	for _, st := range stories {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			st.run(t, newPRWorld(t, bin, st.files...))
		})
	}
}

func prApproveByReaction(t *testing.T, w *e2e.PRWorld) {
	// Nothing verified yet: the gate is closed, nothing is posted.
	stdout, _ := w.Ralph(6, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\ttier=verify", "specs/b.spec.md\ttier=auto", e2e.SpecA+"\tcheckpoint=pending")
	if comments, _ := w.Srv.Snapshot(); len(comments) != 0 {
		t.Fatalf("a comment before the spec was verified: %+v", comments)
	}

	w.Ralph(6, "run")
	cp := w.Checkpoint()
	e2e.Contains(t, "the checkpoint comment", cp.Body, "```text\n"+wantCheckpoint+"```", "<!-- ralph-ci:checkpoint ")
	w.WantStatus("pending")
	out, _ := os.ReadFile(w.Output)
	e2e.Contains(t, "GITHUB_OUTPUT", string(out), "awaiting_human")

	// Re-runs edit the one comment, never post another.
	n := w.PromptCount()
	w.Ralph(6, "run")
	stdout, _ = w.Ralph(6, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
	if w.Checkpoint().ID != cp.ID || w.PromptCount() != n {
		t.Fatal("a re-run posted a new comment or ran the agent again")
	}

	w.Srv.React(cp.ID, e2e.Mallory, "+1")
	w.Srv.React(cp.ID, e2e.Stranger, "+1")
	w.Srv.React(cp.ID, e2e.Depbot, "+1")
	w.Srv.React(cp.ID, e2e.PRAuthor, "+1")
	w.Srv.React(cp.ID, e2e.Alice, "heart")
	_, stderr := w.Ralph(6, "check")
	for _, why := range []string{
		`"author":"mallory","reason":"permission \"read\" is below github.required_permission \"write\" and not in github.approvers"`,
		`"author":"stranger","reason":"permission \"none\" is below`,
		`"author":"dependabot[bot]","reason":"a bot"`,
		`"author":"Codertocat","reason":"the pull request's author (github.ignore_pr_author)"`,
		`"author":"alice","reason":"reaction \"heart\" is not an answer (+1 = yes, -1 = no)"`,
	} {
		e2e.Contains(t, "the log of ignored answers", stderr, why)
	}

	w.Srv.React(cp.ID, e2e.Alice, "+1")
	stdout, _ = w.Ralph(0, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
	e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, "Approved by @alice for commit "+w.HeadSHA[:7])
	w.WantStatus("success")
	if r := w.Record(); r.Status != tiers.StatusApproved || r.DecidedBy != "alice" || r.SHA != w.HeadSHA {
		t.Fatalf("record %+v", r)
	}

	// The run finds the work verified and approved: done, no rotation.
	w.Ralph(0, "run")
	w.Ralph(0, "check")
	if w.Checkpoint().ID != cp.ID || w.PromptCount() != n {
		t.Fatal("after the approval, a new comment or another rotation")
	}
}

func prApproveByReply(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Mallory, "yes")
	w.Srv.AddComment(e2e.Depbot, "1")
	w.Srv.AddComment(e2e.PRAuthor, "yes")
	w.Srv.AddComment(e2e.Stranger, "1")
	_, stderr := w.Ralph(6, "check")
	e2e.Contains(t, "the log of ignored answers", stderr, `"kind":"reply","author":"mallory","reason":"permission`,
		`"author":"dependabot[bot]","reason":"a bot"`, `"author":"Codertocat","reason":"the pull request's author`,
		`"author":"stranger","reason":"permission \"none\"`)
	// Carol has no permission but is in github.approvers.
	w.Srv.AddComment(e2e.Carol, "Yes")
	stdout, _ := w.Ralph(0, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
	e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, "Approved by @carol")
	w.WantStatus("success")
	w.Ralph(0, "run")
}

func prStale(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	cp := w.Checkpoint()
	w.Srv.React(cp.ID, e2e.Alice, "+1")
	w.Ralph(0, "check")

	// A push: the approval was for the old head; the checkpoint is asked
	// again for the new one (the spec itself did not change: still 3/3).
	old := w.HeadSHA
	w.PushFile("notes.txt")
	stdout, _ := w.Ralph(6, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
	e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, "For commit "+w.HeadSHA[:7])
	w.WantStatus("pending")
	if r := w.Record(); r.SHA != w.HeadSHA || r.SHA == old {
		t.Fatalf("record %+v", r)
	}

	// Another push before the tool ran again: a "yes" given now answers a
	// checkpoint shown for an older commit, and is stale.
	w.PushFile("more-notes.txt")
	w.Srv.AddComment(e2e.Alice, "yes")
	_, stderr := w.Ralph(6, "check")
	e2e.Contains(t, "the log", stderr, `"reason":"stale: the checkpoint was presented for commit`)
	if r := w.Record(); r.Status != tiers.StatusPending || r.SHA != w.HeadSHA {
		t.Fatalf("record %+v", r)
	}
	w.Srv.AddComment(e2e.Alice, "yes")
	w.Ralph(0, "check")
	w.WantStatus("success")
	w.Checkpoint()
}

func prEscalate(t *testing.T, w *e2e.PRWorld, choice string) {
	w.Ralph(6, "run")
	cp := w.Checkpoint()

	// Rejection 1, by a reply read by check: the spec is back at work.
	w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
	w.Srv.AddComment(e2e.Carol, "yes") // too late: read in order, the first answer decides
	stdout, stderr := w.Ralph(7, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=rejected")
	e2e.Contains(t, "the log", stderr, `"author":"carol","kind":"reply","reason":"the checkpoint was already answered by an earlier reply"`)
	w.Ralph(7, "check") // read once: nothing recorded twice
	if r := w.Record(); r.RejectionCount != 1 || r.Status != tiers.StatusRework || r.Route != tiers.TestGap {
		t.Fatalf("after rejection 1: %+v", r)
	}
	w.WantStatus("pending")
	n := w.PromptCount()
	w.Ralph(6, "run")
	if w.PromptCount() != n+3 {
		t.Fatalf("%d rotations after the rejection, want 3", w.PromptCount()-n)
	}
	e2e.Contains(t, "the next rotation's prompt", w.PromptAfter(n), `Human checkpoint rejection 1 (test_gap), behavioural context only, never to be run: "the total shows 3 decimals"`)

	// Rejection 2, read by the run itself, in a new workflow run (no
	// .ralph/): the comment's marker carries the counter and the log.
	w.Srv.AddComment(e2e.Alice, "2 the contract must say cents")
	if err := os.RemoveAll(filepath.Join(w.Dir, ".ralph")); err != nil {
		t.Fatal(err)
	}
	n = w.PromptCount()
	w.Ralph(6, "run")
	e2e.Contains(t, "the next rotation's prompt", w.PromptAfter(n), `rejection 1 (test_gap)`, `rejection 2 (contract_gap), behavioural context only, never to be run: "the contract must say cents"`)
	if r := w.Record(); r.RejectionCount != 2 || r.Status != tiers.StatusPending {
		t.Fatalf("after rejection 2: %+v", r)
	}

	// Rejection 3, by a -1 reaction: escalation.
	w.Srv.React(cp.ID, e2e.Alice, "-1")
	stdout, _ = w.Ralph(8, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=escalated")
	wantEscalation := `ESCALATION -- Totals

This slice has been rejected 3 times. Continued iteration without intervention is unlikely to converge.

Rejection history:
  1. Feedback: "the total shows 3 decimals" | Action: ` + tiers.ActionTaken(tiers.TestGap) + `
  2. Feedback: "the contract must say cents" | Action: ` + tiers.ActionTaken(tiers.ContractGap) + `
  3. Feedback: "reaction -1" | Action: ` + tiers.ActionTaken(tiers.TestGap) + `

How would you like to proceed?

  1) Re-scope — Reset the rejection counter and restart the slice from scratch
  2) Pair — Reply 2 with step-by-step guidance: the spec goes back to work with it; resets the rejection counter
  3) Skip verification — Mark as auto-verified and proceed (does not reset the counter)

Which option? (1/2/3)
`
	e2e.Contains(t, "the escalation comment", w.Checkpoint().Body, "```text\n"+wantEscalation+"```")
	w.WantStatus("failure")
	n = w.PromptCount()
	w.Ralph(8, "run") // waits for the decision: no rotation
	if w.PromptCount() != n {
		t.Fatal("an escalated spec was worked on")
	}
	// The reports carry the escalation, and follow their schema.
	report, err := os.ReadFile(filepath.Join(w.Dir, ".ralph", "reports", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateJSON("#Report", "report.json", report); err != nil {
		t.Fatalf("report.json does not follow #Report: %v", err)
	}
	e2e.Contains(t, "report.json", string(report), `"status": "escalated"`, `"rejection_count": 3`, "ESCALATION -- Totals")
	st, err := os.ReadFile(filepath.Join(w.Dir, ".ralph", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateJSON("#State", "state.json", st); err != nil {
		t.Fatalf("state.json does not follow #State: %v", err)
	}

	// Anything but 1, 2 or 3 is re-prompted.
	w.Srv.AddComment(e2e.Alice, "hmm, yes?")
	w.Ralph(8, "check")
	e2e.Contains(t, "the escalation comment", w.Checkpoint().Body, "\n"+tiers.InvalidEscalationChoice+"\n")
	if r := w.Record(); r.RejectionCount != 3 || r.Status != tiers.StatusEscalated {
		t.Fatalf("after an invalid choice: %+v", r)
	}

	switch choice {
	case "1", "2": // re-scope, pair: the counter is reset, back to work
		answer := map[string]string{"1": "1", "2": "2 start from the rounding rule, then the display"}[choice]
		w.Srv.AddComment(e2e.Alice, answer)
		w.Ralph(7, "check")
		r := w.Record()
		route := map[string]string{"1": tiers.RouteRescope, "2": tiers.RoutePair}[choice]
		if r.RejectionCount != 0 || len(r.RejectionLog) != 0 || r.Status != tiers.StatusRework || r.Route != route {
			t.Fatalf("option %s: %+v", choice, r)
		}
		n = w.PromptCount()
		w.Ralph(6, "run")
		want := map[string]string{"1": "The human chose to re-scope this spec after 3 rejections", "2": `Step-by-step guidance from the human (escalation: pair), behavioural context only: "start from the rounding rule, then the display"`}[choice]
		e2e.Contains(t, "the next rotation's prompt", w.PromptAfter(n), want)
		e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, wantCheckpoint)
		// A new slice execution: one rejection is 1/3 again.
		w.Srv.AddComment(e2e.Alice, "still 3 decimals")
		w.Ralph(7, "check")
		if r := w.Record(); r.RejectionCount != 1 {
			t.Fatalf("the counter was not reset: %+v", r)
		}
	case "3": // skip: marked auto, the counter is kept
		w.Srv.AddComment(e2e.Alice, "3")
		stdout, _ = w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		e2e.Contains(t, "the checkpoint comment", w.Checkpoint().Body, tiers.SkipEntry)
		if r := w.Record(); r.RejectionCount != 3 || r.Status != tiers.StatusSkipped || r.Skip != tiers.SkipEntry {
			t.Fatalf("option 3: %+v", r)
		}
		w.WantStatus("success")
		w.Ralph(0, "run")
	}
	if w.Checkpoint().ID != cp.ID {
		t.Fatal("the checkpoint moved to another comment")
	}
}

func prRetries(t *testing.T, w *e2e.PRWorld) {
	w.Srv.Inject(fake.Fault{Method: "GET", Path: `/pulls/2$`, Code: 429, Count: 1})
	w.Srv.Inject(fake.Fault{Method: "GET", Path: `/issues/2/comments$`, Code: 502, Count: 1})
	// The comment is created, but the server answers 500: ralph-ci looks
	// before posting again, and finds it.
	w.Srv.Inject(fake.Fault{Method: "POST", Path: `/issues/2/comments$`, Code: 500, Count: 1, Done: true})
	w.Ralph(6, "run")
	w.Checkpoint()
	w.WantStatus("pending")
	if n := w.Srv.Seen("GET", `/pulls/2$`); n < 3 { // the 429, its retry, the second sync
		t.Errorf("%d reads of the pull request", n)
	}
	w.Srv.AddComment(e2e.Alice, "yes")
	w.Ralph(0, "check")
	w.Checkpoint()
}

func prReadOnly(t *testing.T, w *e2e.PRWorld) {
	w.Srv.SetReadOnly(true)
	stdout, stderr := w.Ralph(6, "run")
	e2e.Contains(t, "the log", stderr, "the GitHub token may not write to this pull request (give the job `permissions: {pull-requests: write, statuses: write}`)")
	e2e.Contains(t, "the annotations", stdout, "::warning file="+e2e.SpecA+",line=1,title=ralph-ci checkpoint%3A "+e2e.SpecA+"::ALL TESTS PASSING -- Slice cart-totals: Totals")
	summary, _ := os.ReadFile(w.Summary)
	e2e.Contains(t, "the job summary", string(summary), "### ralph-ci checkpoint: `"+e2e.SpecA+"`", wantCheckpoint)
	w.Ralph(6, "check")
	if comments, statuses := w.Srv.Snapshot(); len(comments) != 0 || len(statuses) != 0 {
		t.Fatalf("written with a read-only token: %+v %+v", comments, statuses)
	}
}

func prWaitAnswered(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	// Each read of the answers lists the comments (the pull request itself
	// is also read when the check starts, to raise tiers: not a poll).
	reads := w.Srv.Seen("GET", `/issues/2/comments`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"check", "--wait", "25s", "--poll-interval", "20ms"}
	cmd, o, e := w.Command(ctx, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Answer once check has read the answers twice and found it pending.
	for w.Srv.Seen("GET", `/issues/2/comments`) < reads+2 {
		if ctx.Err() != nil {
			t.Fatalf("check --wait did not poll\nstderr:\n%s", e)
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Srv.AddComment(e2e.Alice, "yes")
	w.Exit(0, cmd.Wait(), args, o, e)
	e2e.Contains(t, "check --wait", o.String(), e2e.SpecA+"\tcheckpoint=passed")
	e2e.Contains(t, "the log", e.String(), "waiting for checkpoint answers")
}

func prWaitBound(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	reads := w.Srv.Seen("GET", `/pulls/2$`)
	start := time.Now()
	stdout, _ := w.Ralph(6, "check", "--wait", "200ms", "--poll-interval", "20ms")
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("check --wait 200ms ended after %v", d)
	}
	if n := w.Srv.Seen("GET", `/pulls/2$`) - reads; n < 2 {
		t.Errorf("check --wait read the answers %d times", n)
	}
	e2e.Contains(t, "check --wait", stdout, e2e.SpecA+"\tcheckpoint=pending")
}

func prSeveral(t *testing.T, w *e2e.PRWorld) {
	const specC = "specs/c.spec.md" // no contracts: specs.default_tier (verify)
	stdout, _ := w.Ralph(6, "run")
	e2e.Contains(t, "run", stdout, specC+"  ")
	cpA, _ := w.CheckpointOf(e2e.SpecA)
	cpC, _ := w.CheckpointOf(specC)
	// Neither criteria nor steps: the simplified prompt.
	e2e.Contains(t, "the checkpoint of "+specC, cpC.Body, "```text\nALL TESTS PASSING -- Slice receipts: Receipts\n\nDoes the output match your intent?\n  1) Yes -- mark complete and continue\n  2) No -- I'll describe what's wrong\n  3) Partially -- some criteria met, I'll describe the gaps\n```")
	e2e.Contains(t, "the checkpoint of "+e2e.SpecA, cpA.Body, wantCheckpoint)

	// An answer that addresses no checkpoint is ambiguous.
	w.Srv.AddComment(e2e.Alice, "yes")
	_, stderr := w.Ralph(6, "check")
	e2e.Contains(t, "the log", stderr, `"author":"alice","reason":"several checkpoints are open: quote one or start the reply with its spec path and a colon"`)

	// A quote reply (as GitHub's "Quote reply" makes it) applies to the
	// checkpoint it quotes.
	w.Srv.AddComment(e2e.Alice, "> **ralph-ci checkpoint** · `"+e2e.SpecA+"`\n> \n> ```text\n> ALL TESTS PASSING -- Slice cart-totals: Totals\n\n3 the total must round half up")
	stdout, _ = w.Ralph(7, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=rejected", specC+"\tcheckpoint=pending")
	if _, r := w.CheckpointOf(e2e.SpecA); r.RejectionCount != 1 || r.RejectionLog[0].Feedback != "the total must round half up" || r.Route != tiers.ImplementationGap {
		t.Fatalf("the quoted checkpoint: %+v", r)
	}
	w.Ralph(6, "run")

	// A reply that starts with a spec's id (or path) and a colon applies to it.
	w.Srv.AddComment(e2e.Alice, "receipts: 1")
	stdout, _ = w.Ralph(6, "check")
	e2e.Contains(t, "check", stdout, specC+"\tcheckpoint=passed", e2e.SpecA+"\tcheckpoint=pending")
	w.Srv.AddComment(e2e.Alice, e2e.SpecA+": yes")
	w.Ralph(0, "check")
	w.Ralph(0, "run")
	if a, _ := w.CheckpointOf(e2e.SpecA); a.ID != cpA.ID {
		t.Fatal("a new comment")
	}
}

// prRejectedElsewhere: the merge gate (check on issue_comment) and the
// loop (run on pull_request, its .ralph/ carried from job to job) are
// different jobs. A rejection that check recorded in the comment reaches
// the next run, whose own state still says 3/3: the spec goes back to work.
func prRejectedElsewhere(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	statePath := filepath.Join(w.Dir, ".ralph", "state.json")
	runState, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	w.Srv.AddComment(e2e.Alice, "3 the total shows 3 decimals")
	w.Ralph(7, "check")
	if err := os.WriteFile(statePath, runState, 0o644); err != nil { // the run job's state
		t.Fatal(err)
	}
	n := w.PromptCount()
	w.Ralph(6, "run")
	if w.PromptCount() != n+3 {
		t.Fatalf("%d rotations after the rejection, want 3", w.PromptCount()-n)
	}
	e2e.Contains(t, "the next rotation's prompt", w.PromptAfter(n), `Human checkpoint rejection 1 (implementation_gap)`)
	if r := w.Record(); r.RejectionCount != 1 || r.Status != tiers.StatusPending {
		t.Fatalf("record %+v", r)
	}
}

// prDeleted: someone deleted the checkpoint comment; the next run posts
// it again (once), with the record the state kept.
func prDeleted(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
	w.Ralph(7, "check")
	w.Ralph(6, "run")
	old := w.Checkpoint()
	w.Srv.Delete(old.ID)
	_, stderr := w.Ralph(6, "check")
	if strings.Contains(stderr, "may not write") {
		t.Fatalf("a deleted comment taken for a missing permission:\n%s", stderr)
	}
	if cp := w.Checkpoint(); cp.ID == old.ID {
		t.Fatal("not posted again")
	}
	if r := w.Record(); r.RejectionCount != 1 || r.Status != tiers.StatusPending {
		t.Fatalf("record %+v", r)
	}
	w.Ralph(6, "check")
	w.Checkpoint()
	w.Srv.AddComment(e2e.Alice, "yes")
	w.Ralph(0, "check")
}

// prLogCorruption: the record in the comment's marker cannot be read; the
// log is reset to [], the rejection count (from the state) kept, a warning
// logged, and the comment gets a readable marker again.
func prLogCorruption(t *testing.T, w *e2e.PRWorld) {
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
	w.Ralph(7, "check")
	w.Ralph(6, "run")
	cp := w.Checkpoint()
	i := strings.Index(cp.Body, "<!-- ralph-ci:checkpoint ")
	j := i + strings.Index(cp.Body[i:], " -->")
	w.Srv.Edit(cp.ID, cp.Body[:i]+"<!-- ralph-ci:checkpoint specs%2Fa.spec.md bm90IGpzb24= -->"+cp.Body[j+len(" -->"):])
	_, stderr := w.Ralph(6, "check")
	e2e.Contains(t, "the log", stderr, "LogCorruption", `"rejection_count":1`)
	if r := w.Record(); r.RejectionCount != 1 || len(r.RejectionLog) != 0 || r.Status != tiers.StatusPending {
		t.Fatalf("record %+v", r)
	}

	// CounterOverflow: more than 3 rejections without an escalation
	// escalate at once, with a warning; with no log (EmptyRejectionLog)
	// the escalation has no history block.
	r := w.Record()
	r.RejectionCount = 4
	cp = w.Checkpoint()
	i = strings.Index(cp.Body, "<!-- ralph-ci:checkpoint ")
	j = i + strings.Index(cp.Body[i:], " -->")
	w.Srv.Edit(cp.ID, cp.Body[:i]+tiers.FormatMarker(tiers.Marker{Spec: e2e.SpecA, Record: r})+cp.Body[j+len(" -->"):])
	_, stderr = w.Ralph(8, "check")
	e2e.Contains(t, "the log", stderr, "CounterOverflow", "EmptyRejectionLog")
	body := w.Checkpoint().Body
	e2e.Contains(t, "the escalation", body, "ESCALATION -- Totals\n\nThis slice has been rejected 3 times. Continued iteration without intervention is unlikely to converge.\n\nHow would you like to proceed?")
	w.WantStatus("failure")
}
