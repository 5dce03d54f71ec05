package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// runReport reads the JSON report a run left in dir.
func runReport(t *testing.T, dir string) *report.Report {
	t.Helper()
	r, err := readReport(filepath.Join(dir, ".ralph", "reports", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

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
	requireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := ralphBinary(t)
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
			dir := writeRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": "# Hello\n\nCreate hello.txt.\n", ".gitignore": ".ralph/\n",
			})
			start := time.Now()
			code, stdout, stderr := runRalph(t, bin, dir, agentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_"), 3*time.Minute)
			checkRoutes(t, &srv.requestLog, "claude_server_test.go")
			if code != 3 {
				t.Fatalf("exit %d, want 3 (max rotations)\n%s\n%s", code, stdout, stderr)
			}
			r := runReport(t, dir)
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
