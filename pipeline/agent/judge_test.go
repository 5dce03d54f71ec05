package agent

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// The semantic judge is the agent's own CLI with its vendor's small
// model and no right to edit: the presets' argv, and the flags a user
// added that would give the judge another model or write access.
func TestJudgeAgent(t *testing.T) {
	for _, tc := range []struct {
		name, format, model string
		command             []string
		want                string // the judge's argv; "" none
	}{
		{"claude preset", "claude", "", []string{"claude", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"},
			"claude -p --output-format stream-json --verbose --model claude-haiku-4-5 --permission-mode default --disallowedTools Bash Edit Write NotebookEdit"},
		{"claude with its model and no permissions", "claude", "", []string{"/usr/bin/claude", "-p", "--model=opus", "--dangerously-skip-permissions", "--output-format", "json"},
			"/usr/bin/claude -p --output-format json --model claude-haiku-4-5 --permission-mode default --disallowedTools Bash Edit Write NotebookEdit"},
		{"claude, the model of the config", "claude", "claude-sonnet-4-5", []string{"claude", "-p", "--model", "opus"},
			"claude -p --model claude-sonnet-4-5 --permission-mode default --disallowedTools Bash Edit Write NotebookEdit"},
		{"codex preset", "codex", "", []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "-"},
			"codex exec --json --model gpt-5-mini --sandbox read-only -"},
		{"codex unsandboxed", "codex", "", []string{"codex", "exec", "-m", "gpt-5.5", "--dangerously-bypass-approvals-and-sandbox", "--json"},
			"codex exec --json --model gpt-5-mini --sandbox read-only"},
		{"gemini preset", "gemini", "", []string{"gemini", "--output-format", "json", "--yolo"},
			"gemini --output-format json --model gemini-3.5-flash-lite --approval-mode plan"},
		{"gemini auto_edit", "gemini", "", []string{"gemini", "-m", "gemini-2.5-pro", "--approval-mode=auto_edit"},
			"gemini --model gemini-3.5-flash-lite --approval-mode plan"},
		{"a command agent", "text", "", []string{"sh", "agent.sh"}, ""},
		{"a script that prints Claude's JSON", "claude", "", []string{"sh", "fake-claude.sh"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := schema.Agent{Command: tc.command, Format: tc.format, Env: map[string]string{"K": "v"}}
			j, model, err := JudgeAgent(a, tc.model)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("JudgeAgent = %q, want none", j.Command)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(j.Command, " "); got != tc.want {
				t.Errorf("judge argv\n got %s\nwant %s", got, tc.want)
			}
			if want := SmallModel(tc.format); tc.model == "" && model != want || j.Model != model || j.Env["K"] != "v" {
				t.Errorf("model %q (agent's %q), env %v; want %q and the agent's env", model, j.Model, j.Env, want)
			}
			if strings.Join(a.Command, " ") != strings.Join(tc.command, " ") {
				t.Errorf("the agent's own command changed: %q", a.Command)
			}
		})
	}
}
