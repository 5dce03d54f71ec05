package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The verify tier on a pull request, end to end through the ralph-ci binary:
// `ralph-ci run` and `ralph-ci check` run as subprocesses in GitHub
// Actions' environment, on a git repository with a verify-tier spec and a
// scripted agent, against a fake GitHub (internal/ghfake) in this process
// that keeps the pull request's comments, reactions and statuses and fails
// the test on any request it does not know. The event payloads are the
// real webhook examples of github/prchannel/testdata/events.

var (
	alice    = fake.User{Login: "alice", ID: 10, Type: "User"}          // write
	mallory  = fake.User{Login: "mallory", ID: 11, Type: "User"}        // read only
	depbot   = fake.User{Login: "dependabot[bot]", ID: 12, Type: "Bot"} // a bot
	carol    = fake.User{Login: "carol", ID: 13, Type: "User"}          // github.approvers, no permission
	prAuthor = fake.User{Login: "Codertocat", ID: 14, Type: "User"}     // the PR's author (admin)
	stranger = fake.User{Login: "stranger", ID: 15, Type: "User"}       // not a collaborator
)

// prAgent is the scripted agent: it claims DONE with the promise and
// changes nothing, so a spec is verified 3/3 in three rotations. It keeps
// every prompt it got, numbered, after a line naming the spec, in $PROMPTS (outside the repository, so
// that a test may remove .ralph/ as a new workflow run would).
const prAgent = `prompt=$(cat)
n=$(ls "$PROMPTS" | wc -l)
printf 'RALPH_SPEC=%s\n%s\n' "$RALPH_SPEC" "$prompt" > "$PROMPTS/$((n + 1)).txt"
printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

var prRepoFiles = map[string]string{
	"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
github: {approvers: [carol]}
`,
	"specs/a.spec.md": `---
id: cart-totals
title: Totals
contracts:
  - name: totals
    acceptance_criteria: ["The total has two decimals"]
    steps: ["Open /cart and read the total"]
  - name: export
    verification: auto
    acceptance_criteria: ["The CSV export has the total"]
---
# Totals
`,
	"specs/b.spec.md": "---\ntitle: Refactor\ncontracts:\n  - name: refactor\n    verification: auto\n---\n# Refactor\n",
	"agent.sh":        prAgent,
	".gitignore":      ".ralph/\n",
}

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

const specA = "specs/a.spec.md"

type prWorld struct {
	t                      *testing.T
	bin, dir, head         string
	srv                    *fake.Server
	event, summary, output string
	prompts                string
	extraEnv               []string // more of the job's environment
}

// newPRWorld makes the repository (prRepoFiles, then extra files) and the
// fake GitHub with its pull request at the repository's head. The pull
// request's base has prRepoFiles' ralph.yaml: who may approve is read
// from there (extra files are the pull request's changes).
func newPRWorld(t *testing.T, bin string, extra ...map[string]string) *prWorld {
	t.Helper()
	w := &prWorld{t: t, bin: bin, dir: t.TempDir()}
	files := map[string]string{}
	for _, m := range append([]map[string]string{prRepoFiles}, extra...) {
		for name, content := range m {
			files[name] = content
		}
	}
	files["ralph.yaml"] = withRecords(files["ralph.yaml"])
	for name, content := range files {
		p := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, w.dir, "init", "-q")
	w.commit("init")
	w.startGitHub(prRepoFiles["ralph.yaml"])
	return w
}

// startGitHub makes the job's GitHub files (event, summary, outputs), the
// agent's prompt folder, and the fake GitHub with the pull request of the
// payloads at w.head, whose base has baseConfig as ralph.yaml.
func (w *prWorld) startGitHub(baseConfig string) {
	t := w.t
	gh := t.TempDir()
	w.event, w.summary, w.output = filepath.Join(gh, "event.json"), filepath.Join(gh, "summary.md"), filepath.Join(gh, "output.txt")
	w.prompts = filepath.Join(recordDir(t), "prompts") // the agents write there (recordsGrant)
	if err := os.Mkdir(w.prompts, 0o755); err != nil {
		t.Fatal(err)
	}
	w.setEvent("pull_request.opened.json")
	// The payloads' repository and pull request: Codertocat/Hello-World#2,
	// opened by Codertocat.
	w.srv = fake.New(t, "Codertocat", "Hello-World", 2, w.head, prAuthor.Login)
	w.srv.Perms["alice"], w.srv.Perms["mallory"], w.srv.Perms["Codertocat"] = "write", "read", "admin"
	w.srv.SetFile(w.srv.BaseSHA, "ralph.yaml", baseConfig)
}

// commit commits everything and makes it the head.
func (w *prWorld) commit(msg string) {
	git(w.t, w.dir, "add", "-A")
	git(w.t, w.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", msg)
	out, err := exec.Command("git", "-C", w.dir, "rev-parse", "HEAD").Output()
	if err != nil {
		w.t.Fatal(err)
	}
	w.head = strings.TrimSpace(string(out))
}

// setEvent writes a real webhook payload as the event of the job.
func (w *prWorld) setEvent(name string) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "github", "prchannel", "testdata", "events", name))
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.event, raw, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// push adds a commit to the pull request: a new head, and the job runs on
// its synchronize event.
func (w *prWorld) push(file string) {
	if err := os.WriteFile(filepath.Join(w.dir, file), []byte(file+"\n"), 0o644); err != nil {
		w.t.Fatal(err)
	}
	w.commit("push " + file)
	w.srv.SetHead(w.head)
	w.setEvent("pull_request.synchronize.json")
}

func (w *prWorld) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "RALPH_") {
			continue // the tests' own CI must not leak in
		}
		env = append(env, kv)
	}
	env = append(env, "GITHUB_ACTIONS=true", "GITHUB_API_URL="+w.srv.URL, "GITHUB_REPOSITORY=Codertocat/Hello-World",
		"GITHUB_TOKEN=test-token", "GITHUB_SHA="+w.head, "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+w.event,
		"GITHUB_STEP_SUMMARY="+w.summary, "GITHUB_OUTPUT="+w.output, "GITHUB_WORKSPACE="+w.dir, "PROMPTS="+w.prompts)
	env = append(env, w.extraEnv...)
	return env
}

func (w *prWorld) command(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, w.bin, args...)
	cmd.Dir, cmd.Env = w.dir, w.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// ralph runs the binary and requires the exit code want.
func (w *prWorld) ralph(want int, args ...string) (stdout, stderr string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd, o, e := w.command(ctx, args...)
	w.exit(want, cmd.Run(), args, o, e)
	return o.String(), e.String()
}

func (w *prWorld) exit(want int, err error, args []string, o, e *bytes.Buffer) {
	w.t.Helper()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("ralph-ci %s: %v", strings.Join(args, " "), err)
	}
	if code != want {
		w.t.Fatalf("ralph-ci %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, o, e)
	}
}

// checkpoint is the one checkpoint comment on the pull request (more than
// one is a duplicate).
func (w *prWorld) checkpoint() fake.Comment {
	w.t.Helper()
	var found []fake.Comment
	comments, _ := w.srv.Snapshot()
	for _, c := range comments {
		if c.User == fake.Bot && tiers.HasMarker(c.Body) { // not the progress comment
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		w.t.Fatalf("want exactly one checkpoint comment, got %d: %+v", len(found), found)
	}
	if !strings.Contains(found[0].Body, "`"+specA+"`") {
		w.t.Fatalf("the checkpoint comment is not for %s:\n%s", specA, found[0].Body)
	}
	return found[0]
}

// checkpointOf is the one checkpoint comment of spec, when several specs
// have one.
func (w *prWorld) checkpointOf(spec string) (fake.Comment, tiers.Record) {
	w.t.Helper()
	var found []fake.Comment
	var rec tiers.Record
	comments, _ := w.srv.Snapshot()
	for _, c := range comments {
		if m, err := tiers.ParseMarker(c.Body); err == nil && c.User == fake.Bot && m.Spec == spec {
			found, rec = append(found, c), m.Record
		}
	}
	if len(found) != 1 {
		w.t.Fatalf("want exactly one checkpoint comment of %s, got %d", spec, len(found))
	}
	return found[0], rec
}

// record is the checkpoint's record, as its comment's marker carries it
// across workflow runs.
func (w *prWorld) record() tiers.Record {
	w.t.Helper()
	m, err := tiers.ParseMarker(w.checkpoint().Body)
	if err != nil {
		w.t.Fatal(err)
	}
	return m.Record
}

// status is the last commit status of specA.
func (w *prWorld) status() fake.Status {
	w.t.Helper()
	_, statuses := w.srv.Snapshot()
	for i := len(statuses) - 1; i >= 0; i-- {
		if statuses[i].Context == "ralph-ci/specs/b.spec.md" {
			w.t.Fatalf("a commit status for the auto-tier spec: %+v", statuses[i])
		}
		if statuses[i].Context == "ralph-ci/"+specA {
			return statuses[i]
		}
	}
	w.t.Fatal("no commit status")
	return fake.Status{}
}

func (w *prWorld) wantStatus(state string) {
	w.t.Helper()
	if st := w.status(); st.State != state || st.SHA != w.head {
		w.t.Fatalf("commit status %+v, want %s on %s", st, state, w.head)
	}
}

// prompts counts the prompts the agent got so far.
func (w *prWorld) promptCount() int {
	entries, err := os.ReadDir(w.prompts)
	if err != nil {
		w.t.Fatal(err)
	}
	return len(entries)
}

// promptAfter is the first prompt of specA after the first n prompts.
func (w *prWorld) promptAfter(n int) string {
	w.t.Helper()
	for i := n + 1; i <= w.promptCount(); i++ {
		b, err := os.ReadFile(filepath.Join(w.prompts, fmt.Sprintf("%d.txt", i)))
		if err != nil {
			w.t.Fatal(err)
		}
		if strings.HasPrefix(string(b), "RALPH_SPEC="+specA+"\n") {
			return string(b)
		}
	}
	w.t.Fatalf("no rotation of %s after the first %d", specA, n)
	return ""
}

func contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

func TestTiersOnPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := ralphBinary(t)
	extraSpec := map[string]string{"specs/c.spec.md": "---\nid: receipts\ntitle: Receipts\n---\n# Receipts\n"}
	type story struct {
		name  string
		files []map[string]string // extra files of the world
		run   func(*testing.T, *prWorld)
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
			run: func(t *testing.T, w *prWorld) { prEscalate(t, w, choice) }})
	}
	for _, st := range stories {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			st.run(t, newPRWorld(t, bin, st.files...))
		})
	}
}

func prApproveByReaction(t *testing.T, w *prWorld) {
	// Nothing verified yet: the gate is closed, nothing is posted.
	stdout, _ := w.ralph(6, "check")
	contains(t, "check", stdout, specA+"\ttier=verify", "specs/b.spec.md\ttier=auto", specA+"\tcheckpoint=pending")
	if comments, _ := w.srv.Snapshot(); len(comments) != 0 {
		t.Fatalf("a comment before the spec was verified: %+v", comments)
	}

	w.ralph(6, "run")
	cp := w.checkpoint()
	contains(t, "the checkpoint comment", cp.Body, "```text\n"+wantCheckpoint+"```", "<!-- ralph-ci:checkpoint ")
	w.wantStatus("pending")
	out, _ := os.ReadFile(w.output)
	contains(t, "GITHUB_OUTPUT", string(out), "awaiting_human")

	// Re-runs edit the one comment, never post another.
	n := w.promptCount()
	w.ralph(6, "run")
	stdout, _ = w.ralph(6, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=pending")
	if w.checkpoint().ID != cp.ID || w.promptCount() != n {
		t.Fatal("a re-run posted a new comment or ran the agent again")
	}

	w.srv.React(cp.ID, mallory, "+1")
	w.srv.React(cp.ID, stranger, "+1")
	w.srv.React(cp.ID, depbot, "+1")
	w.srv.React(cp.ID, prAuthor, "+1")
	w.srv.React(cp.ID, alice, "heart")
	_, stderr := w.ralph(6, "check")
	for _, why := range []string{
		`"author":"mallory","reason":"permission \"read\" is below github.required_permission \"write\" and not in github.approvers"`,
		`"author":"stranger","reason":"permission \"none\" is below`,
		`"author":"dependabot[bot]","reason":"a bot"`,
		`"author":"Codertocat","reason":"the pull request's author (github.ignore_pr_author)"`,
		`"author":"alice","reason":"reaction \"heart\" is not an answer (+1 = yes, -1 = no)"`,
	} {
		contains(t, "the log of ignored answers", stderr, why)
	}

	w.srv.React(cp.ID, alice, "+1")
	stdout, _ = w.ralph(0, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=passed")
	contains(t, "the checkpoint comment", w.checkpoint().Body, "Approved by @alice for commit "+w.head[:7])
	w.wantStatus("success")
	if r := w.record(); r.Status != tiers.StatusApproved || r.DecidedBy != "alice" || r.SHA != w.head {
		t.Fatalf("record %+v", r)
	}

	// The run finds the work verified and approved: done, no rotation.
	w.ralph(0, "run")
	w.ralph(0, "check")
	if w.checkpoint().ID != cp.ID || w.promptCount() != n {
		t.Fatal("after the approval, a new comment or another rotation")
	}
}

func prApproveByReply(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	w.srv.AddComment(mallory, "yes")
	w.srv.AddComment(depbot, "1")
	w.srv.AddComment(prAuthor, "yes")
	w.srv.AddComment(stranger, "1")
	_, stderr := w.ralph(6, "check")
	contains(t, "the log of ignored answers", stderr, `"kind":"reply","author":"mallory","reason":"permission`,
		`"author":"dependabot[bot]","reason":"a bot"`, `"author":"Codertocat","reason":"the pull request's author`,
		`"author":"stranger","reason":"permission \"none\"`)
	// carol has no permission but is in github.approvers.
	w.srv.AddComment(carol, "Yes")
	stdout, _ := w.ralph(0, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=passed")
	contains(t, "the checkpoint comment", w.checkpoint().Body, "Approved by @carol")
	w.wantStatus("success")
	w.ralph(0, "run")
}

func prStale(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	cp := w.checkpoint()
	w.srv.React(cp.ID, alice, "+1")
	w.ralph(0, "check")

	// A push: the approval was for the old head; the checkpoint is asked
	// again for the new one (the spec itself did not change: still 3/3).
	old := w.head
	w.push("notes.txt")
	stdout, _ := w.ralph(6, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=pending")
	contains(t, "the checkpoint comment", w.checkpoint().Body, "For commit "+w.head[:7])
	w.wantStatus("pending")
	if r := w.record(); r.SHA != w.head || r.SHA == old {
		t.Fatalf("record %+v", r)
	}

	// Another push before the tool ran again: a "yes" given now answers a
	// checkpoint shown for an older commit, and is stale.
	w.push("more-notes.txt")
	w.srv.AddComment(alice, "yes")
	_, stderr := w.ralph(6, "check")
	contains(t, "the log", stderr, `"reason":"stale: the checkpoint was presented for commit`)
	if r := w.record(); r.Status != tiers.StatusPending || r.SHA != w.head {
		t.Fatalf("record %+v", r)
	}
	w.srv.AddComment(alice, "yes")
	w.ralph(0, "check")
	w.wantStatus("success")
	w.checkpoint()
}

func prEscalate(t *testing.T, w *prWorld, choice string) {
	w.ralph(6, "run")
	cp := w.checkpoint()

	// Rejection 1, by a reply read by check: the spec is back at work.
	w.srv.AddComment(alice, "the total shows 3 decimals")
	w.srv.AddComment(carol, "yes") // too late: read in order, the first answer decides
	stdout, stderr := w.ralph(7, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=rejected")
	contains(t, "the log", stderr, `"author":"carol","kind":"reply","reason":"the checkpoint was already answered by an earlier reply"`)
	w.ralph(7, "check") // read once: nothing recorded twice
	if r := w.record(); r.RejectionCount != 1 || r.Status != tiers.StatusRework || r.Route != tiers.TestGap {
		t.Fatalf("after rejection 1: %+v", r)
	}
	w.wantStatus("pending")
	n := w.promptCount()
	w.ralph(6, "run")
	if w.promptCount() != n+3 {
		t.Fatalf("%d rotations after the rejection, want 3", w.promptCount()-n)
	}
	contains(t, "the next rotation's prompt", w.promptAfter(n), `Human checkpoint rejection 1 (test_gap), behavioural context only, never to be run: "the total shows 3 decimals"`)

	// Rejection 2, read by the run itself, in a new workflow run (no
	// .ralph/): the comment's marker carries the counter and the log.
	w.srv.AddComment(alice, "2 the contract must say cents")
	if err := os.RemoveAll(filepath.Join(w.dir, ".ralph")); err != nil {
		t.Fatal(err)
	}
	n = w.promptCount()
	w.ralph(6, "run")
	contains(t, "the next rotation's prompt", w.promptAfter(n), `rejection 1 (test_gap)`, `rejection 2 (contract_gap), behavioural context only, never to be run: "the contract must say cents"`)
	if r := w.record(); r.RejectionCount != 2 || r.Status != tiers.StatusPending {
		t.Fatalf("after rejection 2: %+v", r)
	}

	// Rejection 3, by a -1 reaction: escalation.
	w.srv.React(cp.ID, alice, "-1")
	stdout, _ = w.ralph(8, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=escalated")
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
	contains(t, "the escalation comment", w.checkpoint().Body, "```text\n"+wantEscalation+"```")
	w.wantStatus("failure")
	n = w.promptCount()
	w.ralph(8, "run") // waits for the decision: no rotation
	if w.promptCount() != n {
		t.Fatal("an escalated spec was worked on")
	}
	// The reports carry the escalation, and follow their schema.
	report, err := os.ReadFile(filepath.Join(w.dir, ".ralph", "reports", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateJSON("#Report", "report.json", report); err != nil {
		t.Fatalf("report.json does not follow #Report: %v", err)
	}
	contains(t, "report.json", string(report), `"status": "escalated"`, `"rejection_count": 3`, "ESCALATION -- Totals")
	st, err := os.ReadFile(filepath.Join(w.dir, ".ralph", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateJSON("#State", "state.json", st); err != nil {
		t.Fatalf("state.json does not follow #State: %v", err)
	}

	// Anything but 1, 2 or 3 is re-prompted.
	w.srv.AddComment(alice, "hmm, yes?")
	w.ralph(8, "check")
	contains(t, "the escalation comment", w.checkpoint().Body, "\n"+tiers.InvalidEscalationChoice+"\n")
	if r := w.record(); r.RejectionCount != 3 || r.Status != tiers.StatusEscalated {
		t.Fatalf("after an invalid choice: %+v", r)
	}

	switch choice {
	case "1", "2": // re-scope, pair: the counter is reset, back to work
		answer := map[string]string{"1": "1", "2": "2 start from the rounding rule, then the display"}[choice]
		w.srv.AddComment(alice, answer)
		w.ralph(7, "check")
		r := w.record()
		route := map[string]string{"1": tiers.RouteRescope, "2": tiers.RoutePair}[choice]
		if r.RejectionCount != 0 || len(r.RejectionLog) != 0 || r.Status != tiers.StatusRework || r.Route != route {
			t.Fatalf("option %s: %+v", choice, r)
		}
		n = w.promptCount()
		w.ralph(6, "run")
		want := map[string]string{"1": "The human chose to re-scope this spec after 3 rejections", "2": `Step-by-step guidance from the human (escalation: pair), behavioural context only: "start from the rounding rule, then the display"`}[choice]
		contains(t, "the next rotation's prompt", w.promptAfter(n), want)
		contains(t, "the checkpoint comment", w.checkpoint().Body, wantCheckpoint)
		// A new slice execution: one rejection is 1/3 again.
		w.srv.AddComment(alice, "still 3 decimals")
		w.ralph(7, "check")
		if r := w.record(); r.RejectionCount != 1 {
			t.Fatalf("the counter was not reset: %+v", r)
		}
	case "3": // skip: marked auto, the counter is kept
		w.srv.AddComment(alice, "3")
		stdout, _ = w.ralph(0, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=passed")
		contains(t, "the checkpoint comment", w.checkpoint().Body, tiers.SkipEntry)
		if r := w.record(); r.RejectionCount != 3 || r.Status != tiers.StatusSkipped || r.Skip != tiers.SkipEntry {
			t.Fatalf("option 3: %+v", r)
		}
		w.wantStatus("success")
		w.ralph(0, "run")
	}
	if w.checkpoint().ID != cp.ID {
		t.Fatal("the checkpoint moved to another comment")
	}
}

func prRetries(t *testing.T, w *prWorld) {
	w.srv.Inject(fake.Fault{Method: "GET", Path: `/pulls/2$`, Code: 429, Count: 1})
	w.srv.Inject(fake.Fault{Method: "GET", Path: `/issues/2/comments$`, Code: 502, Count: 1})
	// The comment is created, but the server answers 500: ralph-ci looks
	// before posting again, and finds it.
	w.srv.Inject(fake.Fault{Method: "POST", Path: `/issues/2/comments$`, Code: 500, Count: 1, Done: true})
	w.ralph(6, "run")
	w.checkpoint()
	w.wantStatus("pending")
	if n := w.srv.Seen("GET", `/pulls/2$`); n < 3 { // the 429, its retry, the second sync
		t.Errorf("%d reads of the pull request", n)
	}
	w.srv.AddComment(alice, "yes")
	w.ralph(0, "check")
	w.checkpoint()
}

func prReadOnly(t *testing.T, w *prWorld) {
	w.srv.SetReadOnly(true)
	stdout, stderr := w.ralph(6, "run")
	contains(t, "the log", stderr, "the GitHub token may not write to this pull request (give the job `permissions: {pull-requests: write, statuses: write}`)")
	contains(t, "the annotations", stdout, "::warning file="+specA+",line=1,title=ralph-ci checkpoint%3A "+specA+"::ALL TESTS PASSING -- Slice cart-totals: Totals")
	summary, _ := os.ReadFile(w.summary)
	contains(t, "the job summary", string(summary), "### ralph-ci checkpoint: `"+specA+"`", wantCheckpoint)
	w.ralph(6, "check")
	if comments, statuses := w.srv.Snapshot(); len(comments) != 0 || len(statuses) != 0 {
		t.Fatalf("written with a read-only token: %+v %+v", comments, statuses)
	}
}

func prWaitAnswered(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	// Each read of the answers lists the comments (the pull request itself
	// is also read when the check starts, to raise tiers: not a poll).
	reads := w.srv.Seen("GET", `/issues/2/comments`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"check", "--wait", "25s", "--poll-interval", "20ms"}
	cmd, o, e := w.command(ctx, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Answer once check has read the answers twice and found it pending.
	for w.srv.Seen("GET", `/issues/2/comments`) < reads+2 {
		if ctx.Err() != nil {
			t.Fatalf("check --wait did not poll\nstderr:\n%s", e)
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.srv.AddComment(alice, "yes")
	w.exit(0, cmd.Wait(), args, o, e)
	contains(t, "check --wait", o.String(), specA+"\tcheckpoint=passed")
	contains(t, "the log", e.String(), "waiting for checkpoint answers")
}

func prWaitBound(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	reads := w.srv.Seen("GET", `/pulls/2$`)
	start := time.Now()
	stdout, _ := w.ralph(6, "check", "--wait", "200ms", "--poll-interval", "20ms")
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("check --wait 200ms ended after %v", d)
	}
	if n := w.srv.Seen("GET", `/pulls/2$`) - reads; n < 2 {
		t.Errorf("check --wait read the answers %d times", n)
	}
	contains(t, "check --wait", stdout, specA+"\tcheckpoint=pending")
}

func prSeveral(t *testing.T, w *prWorld) {
	const specC = "specs/c.spec.md" // no contracts: specs.default_tier (verify)
	stdout, _ := w.ralph(6, "run")
	contains(t, "run", stdout, specC+"  ")
	cpA, _ := w.checkpointOf(specA)
	cpC, _ := w.checkpointOf(specC)
	// Neither criteria nor steps: the simplified prompt.
	contains(t, "the checkpoint of "+specC, cpC.Body, "```text\nALL TESTS PASSING -- Slice receipts: Receipts\n\nDoes the output match your intent?\n  1) Yes -- mark complete and continue\n  2) No -- I'll describe what's wrong\n  3) Partially -- some criteria met, I'll describe the gaps\n```")
	contains(t, "the checkpoint of "+specA, cpA.Body, wantCheckpoint)

	// An answer that addresses no checkpoint is ambiguous.
	w.srv.AddComment(alice, "yes")
	_, stderr := w.ralph(6, "check")
	contains(t, "the log", stderr, `"author":"alice","reason":"several checkpoints are open: quote one or start the reply with its spec path and a colon"`)

	// A quote reply (as GitHub's "Quote reply" makes it) applies to the
	// checkpoint it quotes.
	w.srv.AddComment(alice, "> **ralph-ci checkpoint** · `"+specA+"`\n> \n> ```text\n> ALL TESTS PASSING -- Slice cart-totals: Totals\n\n3 the total must round half up")
	stdout, _ = w.ralph(7, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=rejected", specC+"\tcheckpoint=pending")
	if _, r := w.checkpointOf(specA); r.RejectionCount != 1 || r.RejectionLog[0].Feedback != "the total must round half up" || r.Route != tiers.ImplementationGap {
		t.Fatalf("the quoted checkpoint: %+v", r)
	}
	w.ralph(6, "run")

	// A reply that starts with a spec's id (or path) and a colon applies to it.
	w.srv.AddComment(alice, "receipts: 1")
	stdout, _ = w.ralph(6, "check")
	contains(t, "check", stdout, specC+"\tcheckpoint=passed", specA+"\tcheckpoint=pending")
	w.srv.AddComment(alice, specA+": yes")
	w.ralph(0, "check")
	w.ralph(0, "run")
	if a, _ := w.checkpointOf(specA); a.ID != cpA.ID {
		t.Fatal("a new comment")
	}
}

// prRejectedElsewhere: the merge gate (check on issue_comment) and the
// loop (run on pull_request, its .ralph/ carried from job to job) are
// different jobs. A rejection that check recorded in the comment reaches
// the next run, whose own state still says 3/3: the spec goes back to work.
func prRejectedElsewhere(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	statePath := filepath.Join(w.dir, ".ralph", "state.json")
	runState, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	w.srv.AddComment(alice, "3 the total shows 3 decimals")
	w.ralph(7, "check")
	if err := os.WriteFile(statePath, runState, 0o644); err != nil { // the run job's state
		t.Fatal(err)
	}
	n := w.promptCount()
	w.ralph(6, "run")
	if w.promptCount() != n+3 {
		t.Fatalf("%d rotations after the rejection, want 3", w.promptCount()-n)
	}
	contains(t, "the next rotation's prompt", w.promptAfter(n), `Human checkpoint rejection 1 (implementation_gap)`)
	if r := w.record(); r.RejectionCount != 1 || r.Status != tiers.StatusPending {
		t.Fatalf("record %+v", r)
	}
}

// prDeleted: someone deleted the checkpoint comment; the next run posts
// it again (once), with the record the state kept.
func prDeleted(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	w.srv.AddComment(alice, "the total shows 3 decimals")
	w.ralph(7, "check")
	w.ralph(6, "run")
	old := w.checkpoint()
	w.srv.Delete(old.ID)
	_, stderr := w.ralph(6, "check")
	if strings.Contains(stderr, "may not write") {
		t.Fatalf("a deleted comment taken for a missing permission:\n%s", stderr)
	}
	if cp := w.checkpoint(); cp.ID == old.ID {
		t.Fatal("not posted again")
	}
	if r := w.record(); r.RejectionCount != 1 || r.Status != tiers.StatusPending {
		t.Fatalf("record %+v", r)
	}
	w.ralph(6, "check")
	w.checkpoint()
	w.srv.AddComment(alice, "yes")
	w.ralph(0, "check")
}

// prLogCorruption: the record in the comment's marker cannot be read; the
// log is reset to [], the rejection count (from the state) kept, a warning
// logged, and the comment gets a readable marker again.
func prLogCorruption(t *testing.T, w *prWorld) {
	w.ralph(6, "run")
	w.srv.AddComment(alice, "the total shows 3 decimals")
	w.ralph(7, "check")
	w.ralph(6, "run")
	cp := w.checkpoint()
	i := strings.Index(cp.Body, "<!-- ralph-ci:checkpoint ")
	j := i + strings.Index(cp.Body[i:], " -->")
	w.srv.Edit(cp.ID, cp.Body[:i]+"<!-- ralph-ci:checkpoint specs%2Fa.spec.md bm90IGpzb24= -->"+cp.Body[j+len(" -->"):])
	_, stderr := w.ralph(6, "check")
	contains(t, "the log", stderr, "LogCorruption", `"rejection_count":1`)
	if r := w.record(); r.RejectionCount != 1 || len(r.RejectionLog) != 0 || r.Status != tiers.StatusPending {
		t.Fatalf("record %+v", r)
	}

	// CounterOverflow: more than 3 rejections without an escalation
	// escalate at once, with a warning; with no log (EmptyRejectionLog)
	// the escalation has no history block.
	r := w.record()
	r.RejectionCount = 4
	cp = w.checkpoint()
	i = strings.Index(cp.Body, "<!-- ralph-ci:checkpoint ")
	j = i + strings.Index(cp.Body[i:], " -->")
	w.srv.Edit(cp.ID, cp.Body[:i]+tiers.FormatMarker(tiers.Marker{Spec: specA, Record: r})+cp.Body[j+len(" -->"):])
	_, stderr = w.ralph(8, "check")
	contains(t, "the log", stderr, "CounterOverflow", "EmptyRejectionLog")
	body := w.checkpoint().Body
	contains(t, "the escalation", body, "ESCALATION -- Totals\n\nThis slice has been rejected 3 times. Continued iteration without intervention is unlikely to converge.\n\nHow would you like to proceed?")
	w.wantStatus("failure")
}
