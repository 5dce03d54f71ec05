package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/agentuser"
)

func TestClaudeCodeEndToEnd(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	claude := e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	e2e.LogAgentVersion(t, claude)
	bin := e2e.RalphBinary(t)

	for _, tc := range []struct {
		name  string
		agent string // the coder agent in ralph.yaml, without env
	}{
		{"json", "command: [claude, -p, --output-format, json, --permission-mode, acceptEdits]\n    format: claude"},
		// The preset: claude -p --output-format stream-json --verbose
		// --permission-mode acceptEdits, format claude.
		{"stream-json preset", "preset: claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			home, configDir := claudeHome(t)

			const content = "hello from claude\n"
			// The server needs the absolute path for the Write tool.
			repoDir := filepath.Join(t.TempDir(), "repo")
			hello := filepath.Join(repoDir, "hello.txt")
			srv := newMessagesServer(t, hello, content, "IMPLEMENTATION_COMPLETE")

			config := fmt.Sprintf(`agents:
  coder:
    %s
    timeout: 5m # a guard against a hang: a loaded machine slows the CLI
%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
`, tc.agent, claudeEnvYAML(srv.URL(), configDir))
			prompt := "# Hello\n\nCreate hello.txt at the repository root containing exactly \"hello from claude\".\n"
			dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": prompt, ".gitignore": ".ralph/\n",
			})

			// ANTHROPIC_*/CLAUDE* of the developer's environment (a key, a
			// model, Bedrock or Vertex switches, CLAUDECODE when run from a
			// Claude Code session) would change what the CLI does.
			env := e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")
			code, stdout, stderr := e2e.RunRalph(t, bin, dir, env, 90*time.Second)
			elapsed := time.Since(start)
			t.Logf("ralph-ci run took %v", elapsed.Round(time.Millisecond))
			e2e.CheckRoutes(t, &srv.RequestLog, "claude_server_test.go")
			if os.Geteuid() == 0 { // as root, the CLI runs as the agent's user of its own (box.user)
				if name, _ := e2e.AgentUserOf(stderr); !agentuser.InPool(name) {
					t.Errorf("the CLI did not run as a user of the agent pool (%q):\n%s", name, stderr)
				}
			}
			srv.mu.Lock()
			toolErrors, toolOK, prompts := srv.toolErrors, srv.toolOK, srv.prompts
			srv.mu.Unlock()
			if len(toolErrors) > 0 {
				t.Errorf("Claude Code's Write tool failed: %q", toolErrors)
			}
			if len(toolOK) != 1 {
				t.Errorf("want exactly one successful Write tool_result, got %q", toolOK)
			}
			e2e.CheckFirstPrompt(t, prompts, "hello from claude")
			e2e.CheckVerifiedLoop(t, e2e.LoopRun{
				Code: code, Stdout: stdout, Stderr: stderr, Dir: dir,
				File: hello, Content: content, Agent: "Claude Code", WantCost: true,
				History: []string{`"type":"result"`, `"total_cost_usd"`, `<promise>IMPLEMENTATION_COMPLETE</promise>`, `RALPH_STATUS: DONE`},
			})
		})
	}
}

// claudeHome is a private HOME for Claude Code with its config dir,
// seeded with the onboarding state (see the notes above).
func claudeHome(t testing.TB) (home, configDir string) {
	t.Helper()
	home = t.TempDir()
	configDir = filepath.Join(home, ".claude")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configDir, ".claude.json"), []byte(`{"hasCompletedOnboarding": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, configDir
}

// claudeEnvYAML is the env block (under an agent of ralph.yaml) that points
// Claude Code at the scripted server url with its config in configDir,
// plus extra "KEY: value" lines.
func claudeEnvYAML(url, configDir string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    env:\n      ANTHROPIC_BASE_URL: %q\n      ANTHROPIC_API_KEY: sk-ant-test-not-a-real-key\n", url)
	b.WriteString("      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: \"1\"\n      DISABLE_AUTOUPDATER: \"1\"\n")
	fmt.Fprintf(&b, "      CLAUDE_CONFIG_DIR: %q\n", configDir)
	for _, kv := range extra {
		b.WriteString("      " + kv + "\n")
	}
	return b.String()
}
