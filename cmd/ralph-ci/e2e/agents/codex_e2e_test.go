package agents

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The Codex end-to-end test: ralph-ci with the real Codex CLI (npm
// @openai/codex, installed by .ci/run) as its coder agent, through the
// preset (codex exec --json --sandbox workspace-write -), pointed at a
// scripted Responses API server in this process (codex_server_test.go).
// Codex itself runs the shell command that writes hello.txt, in its
// workspace-write sandbox.
//
// Pointing Codex at a local server (checked with 0.169.0): a custom
// model provider in $CODEX_HOME/config.toml with wire_api = "responses"
// (the only wire API current Codex speaks; a custom provider makes no
// WebSocket attempt); env_key names the variable holding the API key.
// Codex reads no base-URL variable, so the agent declares its model_api:
// the key variable, the provider's base_url setting (ralph-ci gives the
// proxy's route as `-c model_providers.ralph_test.base_url="..."`) and
// the upstream the proxy forwards to (http://127.0.0.1:PORT/v1), which
// gets the key set in the agent's env. The model is one Codex has
// metadata for (gpt-5.5): an unknown one works too but adds an "error"
// item ("Model metadata for … not found") to the JSONL. Codex reports
// tokens but no cost, so no cost_usd is expected.

const codexConfig = `model = "gpt-5.5"
model_provider = "ralph_test"

[model_providers.ralph_test]
name = "ralph-ci test server"
base_url = "http://127.0.0.1:9/unused-ralph-ci-sets-it"
wire_api = "responses"
env_key = "RALPH_TEST_CODEX_KEY"
request_max_retries = 0
stream_max_retries = 0
`

func TestCodexEndToEnd(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Codex CLI")
	}
	codex := e2e.RequireAgentCLI(t, "codex", "@openai/codex")
	e2e.LogAgentVersion(t, codex)
	bin := e2e.RalphBinary(t)
	start := time.Now()

	home := e2e.AgentDir(t) // as root, the CLI runs as the agent's user of its own, which writes CODEX_HOME
	codexHome := filepath.Join(home, ".codex")
	repoDir := filepath.Join(t.TempDir(), "repo")
	const content = "hello from codex\n"
	hello := filepath.Join(repoDir, "hello.txt")
	srv := newResponsesServer(t, hello, "hello.txt", content, "IMPLEMENTATION_COMPLETE")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(codexConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	e2e.GiveAgent(t, codexHome)

	config := fmt.Sprintf(`agents:
  coder:
    preset: codex
    timeout: 5m # a guard against a hang: a loaded machine slows the CLI
    env:
      CODEX_HOME: %q
      RALPH_TEST_CODEX_KEY: sk-test-not-a-real-key
    model_api:
      keys: [RALPH_TEST_CODEX_KEY]
      setting: model_providers.ralph_test.base_url
      upstream: %q
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
`, codexHome, srv.URL())
	prompt := "# Hello\n\nCreate hello.txt at the repository root containing exactly \"hello from codex\".\n"
	dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
		"ralph.yaml": config, "PROMPT.md": prompt, ".gitignore": ".ralph/\n",
	})

	// OPENAI_* (a key, OPENAI_BASE_URL) and CODEX_* of the developer's
	// environment would change what the CLI does.
	env := e2e.AgentEnv(home, "OPENAI_", "CODEX_")
	code, stdout, stderr := e2e.RunRalph(t, bin, dir, env, 90*time.Second)
	t.Logf("ralph-ci run took %v", time.Since(start).Round(time.Millisecond))
	e2e.CheckRoutes(t, &srv.RequestLog, "codex_server_test.go")
	srv.mu.Lock()
	toolErrors, toolOK, users := srv.toolErrors, srv.toolOK, srv.userTexts
	srv.mu.Unlock()
	if len(toolErrors) > 0 {
		t.Errorf("Codex's shell call did not exit 0: %q", toolErrors)
	}
	if len(toolOK) != 1 {
		t.Errorf("want exactly one successful shell call, got %q", toolOK)
	}
	e2e.CheckFirstPrompt(t, users, "hello from codex")
	e2e.CheckVerifiedLoop(t, e2e.LoopRun{
		Code: code, Stdout: stdout, Stderr: stderr, Dir: dir,
		File: hello, Content: content, Agent: "Codex",
		History: []string{`"type":"thread.started"`, `"type":"command_execution"`, `"exit_code":0`, `"type":"turn.completed"`, `<promise>IMPLEMENTATION_COMPLETE</promise>`},
	})
	// Codex reports tokens, no cost, no model: each rotation's spend is its
	// tokens at gpt-5.5's default price ($1.25 in, $10 out per million; the
	// scripted server caches nothing), worked out here by hand, and its
	// semantic judge's at gpt-5-mini's ($0.25 in, $2 out).
	for _, rot := range e2e.RunReport(t, dir).Specs[0].Rotations {
		want := (float64(rot.InputTokens)*1.25 + float64(rot.OutputTokens)*10) / 1e6
		if j := rot.Judge; j == nil || j.Model != "gpt-5-mini" || j.Verdict != "VERIFIED" || j.InputTokens == 0 {
			t.Errorf("rotation %d: semantic judge %+v, want gpt-5-mini's VERIFIED", rot.Iteration, j)
		} else {
			want += (float64(j.InputTokens)*0.25 + float64(j.OutputTokens)*2) / 1e6
		}
		if rot.Spend == nil || rot.InputTokens == 0 || math.Abs(rot.Spend.USD-want) > 1e-12 || rot.Spend.Unpriced != 0 {
			t.Errorf("rotation %d: spend %+v for %d+%d tokens, want $%.8f", rot.Iteration, rot.Spend, rot.InputTokens, rot.OutputTokens, want)
		}
	}
}
