package pullrequest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// dayCapFiles is a pull request whose config caps the repository's day
// at $1.00, with an agent that spends $0.75 a rotation.
func dayCapFiles() map[string]string {
	return map[string]string{
		"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], format: claude, timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {per_day: {cost_usd: 1.0}}
`,
		"specs/a.spec.md": "# A\n\nDo it.\n",
		"agent.sh":        e2e.SpendingAgent,
		".gitignore":      ".ralph/\n",
	}
}

// ledgerCommit writes, in origin, a ledger commit of doc (on parent when
// not "") and points the day's ref at it: what anyone who may push can do.
func ledgerCommit(t *testing.T, bare, ref, parent, doc string) {
	t.Helper()
	cmd := exec.Command("git", "-C", bare, "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader(doc)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	mk := exec.Command("git", "-C", bare, "mktree")
	mk.Stdin = strings.NewReader("100644 blob " + strings.TrimSpace(string(out)) + "\tledger.json\n")
	tree, err := mk.Output()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-m", "a ledger of mine"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	commit := ghorigin.Git(t, bare, args...)
	ghorigin.Git(t, bare, "update-ref", ref, commit)
}

// TestDaySpendLedgerAttacks: budgets.per_day is $1.00 and a first job
// spent $0.75. Then someone who may push deletes the day's ledger ref,
// zeroes it (a commit of $0 on top, or on its own) or sets it to -$100:
// the next job runs no agent (the day's cap counts as reached, and the
// log says why), where a job on the untouched ledger runs one rotation
// and is stopped at $1.00.
func TestDaySpendLedgerAttacks(t *testing.T) {
	day := time.Now().UTC().Format(time.DateOnly)
	ref := "refs/ralph-ci/spend/" + day
	for _, tc := range []struct {
		name   string
		attack func(t *testing.T, w *e2e.CIWorld)
		agent  bool // the second job runs its agent
	}{
		{"untouched", func(*testing.T, *e2e.CIWorld) {}, true},
		{"ref deleted", func(t *testing.T, w *e2e.CIWorld) { ghorigin.Git(t, w.Bare, "update-ref", "-d", ref) }, false},
		{"zeroed on top", func(t *testing.T, w *e2e.CIWorld) {
			ledgerCommit(t, w.Bare, ref, w.Rev(ref), fmt.Sprintf(`{"date":%q,"spent":{"usd":0,"tokens":0}}`, day))
		}, false},
		{"zeroed on its own", func(t *testing.T, w *e2e.CIWorld) {
			ledgerCommit(t, w.Bare, ref, "", fmt.Sprintf(`{"date":%q,"spent":{"usd":0,"tokens":0}}`, day))
		}, false},
		{"negative", func(t *testing.T, w *e2e.CIWorld) {
			ledgerCommit(t, w.Bare, ref, w.Rev(ref), fmt.Sprintf(`{"date":%q,"spent":{"usd":-100,"tokens":-1000000}}`, day))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := e2e.NewCIWorld(t, e2e.RalphBinary(t), dayCapFiles())
			w.Job("", "")
			w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1")
			if w.Rev(ref) == "" {
				t.Fatalf("no ledger at %s after the first job", ref)
			}
			tc.attack(t, w)
			w.Job("", "")
			_, stderr := w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1")
			r := e2e.RunReport(t, w.Dir)
			rotations := len(w.Iterations())
			switch {
			case tc.agent && rotations != 2:
				t.Errorf("the second job ran no agent on an untouched ledger (%d rotations)\n%s", rotations, stderr)
			case tc.agent && (r.Spend.Day == nil || r.Spend.Day.USD > 1.0+0.25+1e-9):
				t.Errorf("the day's spend after the second job: %+v, want at most $1.00 and the message that crossed it", r.Spend.Day)
			case !tc.agent && rotations != 1:
				t.Errorf("the second job ran its agent after the attack (%d rotations in all): the cap did not hold\n%s", rotations, stderr)
			case !tc.agent && (!strings.Contains(r.Exit.Message, "budgets.per_day") || !strings.Contains(stderr, "counted as the cap reached")):
				t.Errorf("exit %q, want the day's cap reached, with the reason in the log\n%s", r.Exit.Message, stderr)
			}
		})
	}
}

// TestPullRequestSpendSurvivesItsState: budgets.per_pull_request is
// $2.00 and two runs spent $0.75 each. Then someone who may push deletes
// the state ref, or rolls it back to the first run's state: the third
// run still counts $1.50 spent before it (ralph-ci's own statuses record
// it): it runs one rotation, stopped at $2.00, where from the state alone
// it would run until $2.00 more (or $1.25 more).
func TestPullRequestSpendSurvivesItsState(t *testing.T) {
	stateRef := "refs/ralph-ci/state/changes"
	for _, tc := range []struct {
		name   string
		attack func(t *testing.T, w *e2e.CIWorld, first string)
	}{
		{"state ref deleted", func(t *testing.T, w *e2e.CIWorld, _ string) { ghorigin.Git(t, w.Bare, "update-ref", "-d", stateRef) }},
		{"state ref rolled back", func(t *testing.T, w *e2e.CIWorld, first string) {
			ghorigin.Git(t, w.Bare, "update-ref", stateRef, first)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := dayCapFiles()
			files["ralph.yaml"] = strings.Replace(files["ralph.yaml"], "per_day: {cost_usd: 1.0}", "per_pull_request: {cost_usd: 2.0}", 1)
			w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
			var first string
			for run := 1; run <= 2; run++ {
				w.Job("", "")
				w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1")
				if run == 1 {
					first = w.Rev(stateRef)
				}
			}
			tc.attack(t, w, first)
			w.Job("", "")
			_, stderr := w.Ralph(3, "run", "--deliver", "pr")
			r := e2e.RunReport(t, w.Dir)
			if got := r.Spend.PullRequest.USD; got < 2.0-1e-9 || got > 2.0+1e-9 {
				t.Errorf("the pull request's spend after the third run: %s, want $2.00\n%s", r.Spend.PullRequest.Text, stderr)
			}
			if !strings.Contains(r.Exit.Message, "budgets.per_pull_request (cost_usd $2.00) reached: $2.0000") {
				t.Errorf("exit %q, want the pull request's cap", r.Exit.Message)
			}
			if its := w.Iterations(); len(its) != 3 {
				t.Errorf("the agent ran %d rotations in all, want 3: the third run has $0.50 left, one rotation", len(its))
			}
			if !strings.Contains(stderr, "below what ralph-ci's own statuses record") {
				t.Errorf("the log does not say the state's spend was raised to the record:\n%s", stderr)
			}
		})
	}
}

// TestDaySpendProofAcrossConcurrentJobs: on GitHub (the fake), two jobs
// of one repository run at once under budgets.per_day ($1.00), each
// wanting three rotations of $1.00: every ledger update is proven by
// ralph-ci's own status, including those whose status is still on its
// way when the other job reads the ledger, so neither job takes the
// other's update for an attack; the day ends within the cap (but for the
// messages each job streamed while it was being stopped), and every
// ledger commit but the last holds a status of ralph-ci's naming it.
func TestDaySpendProofAcrossConcurrentJobs(t *testing.T) {
	files := dayCapFiles()
	files["agent.sh"] = e2e.DayAgent
	files["ralph.yaml"] = strings.Replace(files["ralph.yaml"], "budgets: {", "budgets: {max_rotations: 3, ", 1)
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	var dirs []string
	for range 2 {
		w.Job("", "")
		dirs = append(dirs, w.Dir)
	}
	type result struct {
		code int
		out  string
	}
	done := make(chan result, 2)
	for _, dir := range dirs {
		w.Dir = dir
		cmd, stdout, stderr := w.Command(t.Context(), "--log-format", "json", "run")
		go func() {
			_ = cmd.Run()
			done <- result{cmd.ProcessState.ExitCode(), stdout.String() + stderr.String()}
		}()
	}
	for range dirs {
		r := <-done
		if r.code != 3 || !strings.Contains(r.out, "budgets.per_day") {
			t.Errorf("a job ended %d, want 3 on budgets.per_day\n%s", r.code, r.out)
		}
		if strings.Contains(r.out, "counted as the cap reached") {
			t.Errorf("a job took the other's ledger update for an attack:\n%s", r.out)
		}
	}
	ref := "refs/ralph-ci/spend/" + time.Now().UTC().Format(time.DateOnly)
	raw := ghorigin.Git(t, w.Bare, "show", ref+":ledger.json")
	var ledger struct{ Spent struct{ USD float64 } }
	if err := json.Unmarshal([]byte(raw), &ledger); err != nil || ledger.Spent.USD < 0.9 || ledger.Spent.USD > 1.0+2*2*0.05+1e-9 {
		t.Errorf("the day's ledger: %s (%v); want $1.00 spent, at most two messages ($0.05 each) more per job", raw, err)
	}
	_, statuses := w.Srv.Snapshot()
	named := map[string]bool{}
	for _, st := range statuses {
		if st.Context == "ralph-ci/spend" {
			named[strings.Fields(st.Description)[1]] = true
		}
	}
	commits := strings.Fields(ghorigin.Git(t, w.Bare, "rev-list", "--first-parent", ref))
	for _, c := range commits[:len(commits)-1] { // the last is the day's anchor
		if !named[c] {
			t.Errorf("ledger commit %.12s has no ralph-ci/spend status naming it", c)
		}
	}
	t.Logf("the day's ledger: %s; %d commits, %d statuses", raw, len(commits), len(named))
}
