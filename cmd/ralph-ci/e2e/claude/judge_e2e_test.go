package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The semantic judge with the real Claude Code CLI: the coder is the
// claude preset against the scripted Messages API, and ralph-ci runs the
// same CLI with Anthropic's small model as the judge of each claim the
// other layers let through. The scripted model judges as a model would:
// a final message that admits, in Polish (a language ralph-ci's word
// lists do not hold), that the tests are still to be written is
// NOT_VERIFIED; an honest one is VERIFIED. The judge's cost is in the
// rotation's report and in the run's spend.
func TestSemanticJudgeClaudeEndToEnd(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := e2e.RalphBinary(t)
	const polish = "Testy jeszcze nie są napisane, zrobię je w następnym kroku."
	for _, tc := range []struct {
		name, admit string
		verified    bool
	}{
		{"an honest claim passes", "", true},
		{"an admission in a language the lists do not hold is rejected", "\n\n" + polish, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, configDir := claudeHome(t)
			repoDir := filepath.Join(t.TempDir(), "repo")
			hello := filepath.Join(repoDir, "hello.txt")
			srv := newMessagesServer(t, hello, "hello from claude\n", "IMPLEMENTATION_COMPLETE")
			srv.admit = tc.admit
			var judgePrompts []string
			srv.judge = func(prompt string) string {
				judgePrompts = append(judgePrompts, prompt)
				_, message, _ := strings.Cut(prompt, "<<<MESSAGE\n")
				if strings.Contains(message, "jeszcze nie") {
					return "NOT_VERIFIED: the agent says in Polish that the tests are not written yet"
				}
				return "VERIFIED"
			}
			config := fmt.Sprintf("agents:\n  coder:\n    preset: claude\n    timeout: 1m\n%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n", claudeEnvYAML(srv.URL(), configDir))
			dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, ".gitignore": ".ralph/\n",
				"PROMPT.md": "# Hello\n\nCreate hello.txt at the repository root containing exactly \"hello from claude\".\n",
			})
			env := e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")
			code, _, stderr := e2e.RunRalphArgs(t, bin, dir, env, 3*time.Minute, "--log-format", "json", "run", "--max-rotations", "1")
			e2e.CheckRoutes(t, &srv.RequestLog, "claude_server_test.go")

			rep := readJudgeReport(t, dir)
			if len(rep.Specs) != 1 || len(rep.Specs[0].Rotations) != 1 {
				t.Fatalf("exit %d, report %+v\nstderr:\n%s", code, rep, stderr)
			}
			rot := rep.Specs[0].Rotations[0]
			j := rot.Judge
			if j == nil {
				t.Fatalf("no judge in the rotation's report: %+v\nstderr:\n%s", rot, stderr)
			}
			srv.mu.Lock()
			models := srv.judgeModels
			srv.mu.Unlock()
			if len(judgePrompts) != 1 || len(models) != 1 || models[0] != "claude-haiku-4-5" || j.Model != "claude-haiku-4-5" {
				t.Errorf("judge conversations with models %q (report: %q), want one with claude-haiku-4-5", models, j.Model)
			}
			if len(judgePrompts) > 0 && (!strings.Contains(judgePrompts[0], "hello.txt") || !strings.Contains(judgePrompts[0], "RALPH_STATUS: DONE")) {
				t.Errorf("the judge's prompt lacks the diff or the final message:\n%s", judgePrompts[0])
			}
			wantVerdict := map[bool]string{true: "VERIFIED", false: "NOT_VERIFIED"}[tc.verified]
			if rot.Accepted != tc.verified || j.Verdict != wantVerdict {
				t.Errorf("accepted %v, judge %q (reason %q); want %v, %s", rot.Accepted, j.Verdict, rot.Reason, tc.verified, wantVerdict)
			}
			if !tc.verified && !strings.Contains(rot.Reason, "semantic judge (claude-haiku-4-5, agent coder) answered NOT_VERIFIED: the agent says in Polish") {
				t.Errorf("reason %q does not name the judge's answer", rot.Reason)
			}
			// The judge's cost: in its report, in the rotation's spend
			// beside the agent's, and in the run's.
			if !j.CostKnown || j.CostUSD <= 0 || j.Spend == nil || j.Spend.USD != j.CostUSD {
				t.Errorf("judge cost %v (known %v), spend %+v; want Claude Code's total_cost_usd", j.CostUSD, j.CostKnown, j.Spend)
			}
			if rot.Spend == nil || !near(rot.Spend.USD, rot.CostUSD+j.CostUSD) || !near(rep.Spend.Run.USD, rot.Spend.USD) {
				t.Errorf("rotation spend %+v, agent %v, judge %v, run %+v: the judge's cost must count", rot.Spend, rot.CostUSD, j.CostUSD, rep.Spend.Run)
			}
			logs := e2e.RotationLogs(t, stderr)
			if len(logs) != 1 || !strings.Contains(string(stderr), `"judge_cost_usd":`) {
				t.Errorf("the rotation's log line does not show the judge's cost:\n%s", stderr)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// judgeReport is what the judge's test reads of the JSON report.
type judgeReport struct {
	Specs []struct {
		Rotations []struct {
			Accepted bool    `json:"accepted"`
			Reason   string  `json:"reason"`
			CostUSD  float64 `json:"cost_usd"`
			Spend    *amount `json:"spend"`
			Judge    *struct {
				Model     string  `json:"model"`
				Verdict   string  `json:"verdict"`
				CostUSD   float64 `json:"cost_usd"`
				CostKnown bool    `json:"cost_known"`
				Spend     *amount `json:"spend"`
			} `json:"judge"`
		} `json:"rotations"`
	} `json:"specs"`
	Spend struct {
		Run amount `json:"run"`
	} `json:"spend"`
}

type amount struct {
	USD    float64 `json:"usd"`
	Tokens int64   `json:"tokens"`
}

func readJudgeReport(t *testing.T, dir string) judgeReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".ralph", "reports", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r judgeReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
