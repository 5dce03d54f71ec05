package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The Gemini CLI end-to-end test: ralph-ci with the real Gemini CLI (npm
// @google/gemini-cli, installed by .ci/run) as its coder agent, pointed at
// a scripted Gemini API server in this process (gemini_server_test.go).
// The CLI itself writes hello.txt with its write_file tool.
//
// What the CLI needs to run headless against a local server (checked with
// 0.61.0; its docs/reference/configuration.md):
//   - GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT (plain http is allowed
//     for localhost only) and any GEMINI_API_KEY;
//   - security.auth.selectedType "gemini-api-key" in ~/.gemini/settings.json:
//     without it the CLI exits 41, "Invalid auth method selected.";
//   - GEMINI_CLI_TRUST_WORKSPACE=true: in an untrusted folder --yolo is
//     turned back into the default approval mode, and write_file is not
//     run;
//   - privacy.usageStatisticsEnabled and telemetry off, so that nothing
//     else leaves the machine.
// Gemini CLI reports tokens but no cost, so no cost_usd is expected.

const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`

func TestGeminiCLIEndToEnd(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Gemini CLI")
	}
	gemini := e2e.RequireAgentCLI(t, "gemini", "@google/gemini-cli")
	e2e.LogAgentVersion(t, gemini)
	bin := e2e.RalphBinary(t)

	for _, tc := range []struct {
		name    string
		agent   string // the coder agent in ralph.yaml, without env
		history []string
	}{
		// The preset: gemini --output-format json --yolo, prompt on stdin.
		{"json preset", "preset: gemini", []string{`"response":`, `"stats":`, `<promise>IMPLEMENTATION_COMPLETE</promise>`}},
		{"stream-json", "command: [gemini, --output-format, stream-json, --yolo]\n    format: gemini",
			[]string{`"type":"init"`, `"type":"tool_use"`, `"type":"result"`, `<promise>IMPLEMENTATION_COMPLETE</promise>`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			// The settings are in the HOME the agent's env names: as root the
			// CLI runs as the agent's user of its own, whose HOME would be
			// fresh otherwise.
			home := e2e.AgentDir(t)
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(geminiSettings), 0o644); err != nil {
				t.Fatal(err)
			}
			e2e.GiveAgent(t, home)
			repoDir := filepath.Join(t.TempDir(), "repo")
			const content = "hello from gemini\n"
			hello := filepath.Join(repoDir, "hello.txt")
			srv := newGenerativeServer(t, hello, content, "IMPLEMENTATION_COMPLETE")

			config := fmt.Sprintf(`agents:
  coder:
    %s
    timeout: 5m # a guard against a hang: a loaded machine slows the CLI
    env:
      GOOGLE_GEMINI_BASE_URL: %q
      GEMINI_API_KEY: test-not-a-real-key
      GEMINI_CLI_TRUST_WORKSPACE: "true"
      HOME: %q
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
`, tc.agent, srv.URL(), home)
			prompt := "# Hello\n\nCreate hello.txt at the repository root containing exactly \"hello from gemini\".\n"
			dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": prompt, ".gitignore": ".ralph/\n",
			})

			// GEMINI_*/GOOGLE_* of the developer's environment (keys, Vertex
			// switches, credentials, a model) would change what the CLI does.
			env := e2e.AgentEnv(home, "GEMINI_", "GOOGLE_")
			code, stdout, stderr := e2e.RunRalph(t, bin, dir, env, 90*time.Second)
			t.Logf("ralph-ci run took %v", time.Since(start).Round(time.Millisecond))
			e2e.CheckRoutes(t, &srv.RequestLog, "gemini_server_test.go")
			srv.mu.Lock()
			results, users := srv.toolResults, srv.userTexts
			srv.mu.Unlock()
			if len(results) != 1 || strings.Contains(strings.ToLower(results[0]), "error") {
				t.Errorf("want exactly one successful write_file functionResponse, got %q", results)
			}
			e2e.CheckFirstPrompt(t, users, "hello from gemini")
			e2e.CheckVerifiedLoop(t, e2e.LoopRun{
				Code: code, Stdout: stdout, Stderr: stderr, Dir: dir,
				File: hello, Content: content, Agent: "Gemini CLI", History: tc.history,
			})
		})
	}
}
