package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The real Claude Code CLI against a scripted server whose every answer
// reports 100,000 input tokens and asks for one more Write, without end:
// ralph-ci reads the spend while the CLI streams and stops the rotation
// (SIGTERM to its process group) once the spend reaches
// budgets.per_rotation, in dollars (the tokens priced as Claude Code
// 2.1.332 prices claude-opus-5-5: $4 per million input tokens) or in
// tokens. The rotation's spend in the report is within one streamed
// message of the cap, and the CLI made no more than one call after it.
func TestClaudeSpendCapsStopTheRotation(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := e2e.RalphBinary(t)
	const perMessage = 100000 // input tokens per API call
	for _, tc := range []struct {
		name, cap, measure string
		low, high          float64 // the rotation's spend: USD or tokens
	}{
		{"usd", "{cost_usd: 1.0}", "cost_usd", 1.0, 1.0 + 0.4 + 0.01},
		{"tokens", "{tokens: 250000}", "tokens", 250000, 250000 + perMessage + 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, configDir := claudeHome(t)
			repoDir := filepath.Join(t.TempDir(), "repo")
			hello := filepath.Join(repoDir, "hello.txt")
			srv := newMessagesServer(t, hello, "hello from claude\n", "IMPLEMENTATION_COMPLETE")
			srv.usageIn, srv.endless = perMessage, true
			config := fmt.Sprintf(`agents:
  coder:
    preset: claude
    timeout: 2m
%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {max_rotations: 1, per_rotation: %s}
`, claudeEnvYAML(srv.URL(), configDir), tc.cap)
			dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": "# Hello\n\nCreate hello.txt.\n", ".gitignore": ".ralph/\n",
			})
			start := time.Now()
			code, stdout, stderr := e2e.RunRalph(t, bin, dir, e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_"), 3*time.Minute)
			e2e.CheckRoutes(t, &srv.RequestLog, "claude_server_test.go")
			if code != 3 {
				t.Fatalf("exit %d, want 3 (max rotations)\n%s\n%s", code, stdout, stderr)
			}
			r := e2e.RunReport(t, dir)
			rot := r.Specs[0].Rotations[0]
			if rot.StoppedBy == nil || rot.StoppedBy.Key != "budgets.per_rotation" || rot.StoppedBy.Measure != tc.measure || rot.Spend == nil {
				t.Fatalf("rotation not stopped by budgets.per_rotation (%s): %+v\n%s", tc.measure, rot, stderr)
			}
			got := rot.Spend.USD
			if tc.measure == "tokens" {
				got = float64(rot.Spend.Tokens)
			}
			if got < tc.low || got > tc.high {
				t.Errorf("the rotation spent %v (%s), want between the cap %v and one message more, %v", got, rot.Spend.Text, tc.low, tc.high)
			}
			srv.mu.Lock()
			turns := srv.turns
			srv.mu.Unlock()
			want := int(tc.low/perMessage) + 1
			if tc.measure == "cost_usd" {
				want = int(tc.low/0.4) + 1
			}
			if turns > want+1 {
				t.Errorf("the CLI made %d calls of the conversation, want it stopped after %d (one more may have been under way)", turns, want)
			}
			t.Logf("stopped after %s and %d calls: %s, %d tokens; %s", time.Since(start).Round(time.Millisecond), turns, rot.Spend.Text, rot.Spend.Tokens, rot.StoppedBy.Saved)
		})
	}
}

// A model the price table does not know (here claude-unpriced-9, which
// the scripted server answers as) still stops inside the rotation at a
// dollar cap of the run: while the CLI streams, its tokens count at the
// table's highest price ($4 per million input tokens, $0.40 a message),
// so a $0.30 cap stops the first rotation after its first message, not a
// rotation later when Claude Code reports its cost at the end.
func TestClaudeRunCapStopsAnUnpricedModelInsideTheRotation(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := e2e.RalphBinary(t)
	home, configDir := claudeHome(t)
	repoDir := filepath.Join(t.TempDir(), "repo")
	srv := newMessagesServer(t, filepath.Join(repoDir, "hello.txt"), "hello from claude\n", "IMPLEMENTATION_COMPLETE")
	srv.usageIn, srv.endless = 100000, true
	config := fmt.Sprintf(`agents:
  coder:
    preset: claude
    args: [--model, claude-unpriced-9]
    timeout: 2m
%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {cost_usd: 0.30}
`, claudeEnvYAML(srv.URL(), configDir))
	dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
		"ralph.yaml": config, "PROMPT.md": "# Hello\n\nCreate hello.txt.\n", ".gitignore": ".ralph/\n",
	})
	code, stdout, stderr := e2e.RunRalph(t, bin, dir, e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_"), 3*time.Minute)
	e2e.CheckRoutes(t, &srv.RequestLog, "claude_server_test.go")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (limits)\n%s\n%s", code, stdout, stderr)
	}
	rots := e2e.RunReport(t, dir).Specs[0].Rotations
	if len(rots) != 1 || rots[0].StoppedBy == nil || rots[0].StoppedBy.Key != "budgets.cost_usd/tokens" {
		t.Fatalf("want one rotation, stopped by budgets.cost_usd/tokens: %+v\n%s", rots, stderr)
	}
	srv.mu.Lock()
	turns := srv.turns
	srv.mu.Unlock()
	if turns > 2 {
		t.Errorf("the CLI made %d calls, want it stopped after the first (one more may have been under way)", turns)
	}
	t.Logf("stopped after %d calls: %+v", turns, rots[0].StoppedBy)
}

// budgets.per_pull_request holds across workflow runs: the pull request's
// spend travels with its state (delivery pr), each job a fresh checkout.
// With a cap of $2.00 and $0.75 a rotation, runs 1 and 2 spend $0.75
// each; run 3 is stopped in the middle of its rotation when the spend
// reaches $2.00 (two of its three messages), and run 4 ends at once
// without starting an agent.
func TestPullRequestSpendCapAcrossWorkflowRuns(t *testing.T) {
	files := map[string]string{
		"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], format: claude, timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {per_pull_request: {cost_usd: 2.0}}
`,
		"specs/a.spec.md": "# A\n\nDo it.\n",
		"agent.sh":        e2e.SpendingAgent,
		".gitignore":      ".ralph/\n",
	}
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	for run, want := range []float64{0.75, 1.50, 2.00, 2.00} {
		w.Job("", "")
		args := []string{"run", "--deliver", "pr"}
		if run < 2 {
			args = append(args, "--max-rotations", "1")
		}
		_, stderr := w.Ralph(3, args...)
		r := e2e.RunReport(t, w.Dir)
		if got := r.Spend.PullRequest.USD; got < want-1e-9 || got > want+1e-9 {
			t.Fatalf("run %d: the pull request's spend is %s, want $%.2f\n%s", run+1, r.Spend.PullRequest.Text, want, stderr)
		}
		if run >= 2 && !strings.Contains(r.Exit.Message, "budgets.per_pull_request (cost_usd $2.00) reached: $2.0000") {
			t.Errorf("run %d: exit message %q, want the pull request's cap", run+1, r.Exit.Message)
		}
		if run == 2 {
			rot := r.Specs[0].Rotations
			if len(rot) != 1 || rot[0].StoppedBy == nil || rot[0].StoppedBy.Scope != "pull_request" || rot[0].Spend.USD != 0.5 {
				t.Errorf("run 3: rotations %+v, want one stopped by the pull request's cap at $0.50", rot)
			}
		}
	}
	if its := w.Iterations(); len(its) != 3 {
		t.Errorf("the agent ran %d rotations (%v), want 3: run 4 starts none", len(its), its)
	}
}

// budgets.per_day holds when the jobs of two pull requests run at the
// same time: two ralph-ci processes in two clones of one origin, each
// wanting three rotations of $1.00, share a day capped at $1.00. The
// ledger on origin (refs/ralph-ci/spend/DATE), updated compare-and-swap,
// ends within the cap but for the messages each job streamed while it
// was being stopped, both jobs stop on it, and no hold is left.
func TestDaySpendCapAcrossConcurrentJobs(t *testing.T) {
	bin := e2e.RalphBinary(t)
	root := t.TempDir()
	bare := filepath.Join(root, "origin.git")
	seed := e2e.WriteRepoAt(t, filepath.Join(root, "seed"), map[string]string{
		"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], format: claude, timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {max_rotations: 3, per_day: {cost_usd: 1.0}}
`,
		"PROMPT.md": "# Work\n\nDo it.\n", "agent.sh": e2e.DayAgent, ".gitignore": ".ralph/\n",
	})
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "init", "--quiet", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	git(seed, "remote", "add", "origin", bare)
	git(seed, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for _, name := range []string{"pr1", "pr2"} {
		dir := filepath.Join(root, name)
		if out, err := exec.Command("git", "clone", "--quiet", "--branch", "main", bare, dir).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		cmd := exec.Command(bin, "--log-format", "json", "run")
		var out strings.Builder
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(outs[i].String(), "budgets.per_day") {
			t.Errorf("job %d: %v, want exit 3 on budgets.per_day\n%s", i+1, err, outs[i])
		}
	}
	raw := git(bare, "show", "refs/ralph-ci/spend/"+time.Now().UTC().Format(time.DateOnly)+":ledger.json")
	var ledger struct {
		Spent struct{ USD float64 }
		Holds map[string]any
	}
	if err := json.Unmarshal([]byte(raw), &ledger); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	// Each job may pass its share by the message that crossed it, and by
	// the one it was writing when it was stopped (counted: it was spent).
	if ledger.Spent.USD < 0.9 || ledger.Spent.USD > 1.0+2*2*0.05+1e-9 || len(ledger.Holds) != 0 {
		t.Errorf("the day's ledger: %s; want $1.00 spent, at most two messages ($0.05 each) more per job, and no hold left", raw)
	}
	t.Logf("job 1:\n%s\njob 2:\n%s", outs[0], outs[1])
	t.Logf("the day's ledger after both jobs: %s (%s commits)", raw, git(bare, "rev-list", "--count", "refs/ralph-ci/spend/"+time.Now().UTC().Format(time.DateOnly)))
}
