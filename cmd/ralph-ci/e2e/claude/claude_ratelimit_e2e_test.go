package claude

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// TestClaudeCodeRateLimited runs the real Claude Code CLI against a server
// that answers every Messages API call with 429 rate_limit_error (the
// CLI's own retries shortened by CLAUDE_CODE_MAX_RETRIES). ralph-ci must
// see the limit in what the CLI prints ("API Error: Request rejected
// (429) · …"), let the next agent of the pool take the rotation, keep the
// reset time in state.json so that the next run does not call the CLI
// before it, and exit 5 (agents exhausted) when every agent is limited.
// answer429 answers every Messages API call 429 rate_limit_error, and the
// CLI's connectivity check (HEAD /) 200.
func answer429(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusTooManyRequests)
	fmt.Fprint(w, `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again in 3h."},"request_id":"req_scripted"}`)
}

func TestClaudeCodeRateLimited(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("builds the binary and runs the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := e2e.RalphBinary(t)
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			calls.Add(1)
		}
		answer429(w, r)
	}))
	defer srv.Close()

	home, configDir := claudeHome(t)
	limited := "  limited:\n    preset: claude\n    timeout: 5m\n" + claudeEnvYAML(srv.URL, configDir, `CLAUDE_CODE_MAX_RETRIES: "1"`)
	spare := `  spare: {command: [sh, -c, 'cat >/dev/null; echo done > spare.txt; echo "<promise>IMPLEMENTATION_COMPLETE</promise>"; echo "RALPH_STATUS: DONE"']}
`
	config := func(pool string) string {
		return "agents:\n" + limited + spare + "stages: {coder: {agents: [" + pool + "]}, reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n"
	}
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": config("limited, spare"), "PROMPT.md": "# Work\n\nDo it.\n", ".gitignore": ".ralph/\n",
	})
	env := e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")

	// 1. The pool moves on: the spare takes every rotation, the CLI is
	// called in the first one only, and its reset is kept.
	start := time.Now()
	code, stdout, stderr := e2e.RunRalph(t, bin, dir, env, 2*time.Minute)
	if code != 0 || !strings.Contains(string(stderr), `"agent":"limited"`) || !strings.Contains(string(stderr), "Request rejected (429)") {
		t.Fatalf("run 1 exited %d, want 0 after the spare took over from the limited CLI\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	firstCalls := calls.Load()
	if firstCalls == 0 || firstCalls > 2 {
		t.Errorf("the CLI called the API %d times, want its first try and one retry", firstCalls)
	}
	var st struct {
		LimitedAgents map[string]time.Time `json:"limited_agents"`
	}
	if err := json.Unmarshal([]byte(e2e.ReadState(t, dir)), &st); err != nil {
		t.Fatal(err)
	}
	reset := st.LimitedAgents["limited"]
	if reset.Before(start.Add(3*time.Hour-time.Minute)) || reset.After(time.Now().Add(3*time.Hour+time.Minute)) {
		t.Fatalf("state.json limited_agents = %v, want limited resetting in 3h", st.LimitedAgents)
	}

	// 2. The next run honours the kept reset: with only the limited agent
	// and new work it exits 5 without calling the CLI.
	if err := os.WriteFile(filepath.Join(dir, "ralph.yaml"), []byte(config("limited")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "PROMPT.md"), []byte("# Work\n\nDo more.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = e2e.RunRalph(t, bin, dir, env, time.Minute)
	if code != 5 || calls.Load() != firstCalls || !strings.Contains(string(stderr), "every agent of the pool is rate limited") {
		t.Fatalf("run 2 exited %d after %d more API calls, want 5 without calling the CLI\nstderr:\n%s", code, calls.Load()-firstCalls, stderr)
	}

	// 3. Without a kept reset, every agent limited: exit 5 after calling it.
	if out, err := exec.Command("rm", "-rf", filepath.Join(dir, ".ralph")).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	code, _, stderr = e2e.RunRalph(t, bin, dir, env, 2*time.Minute)
	if code != 5 || calls.Load() == firstCalls {
		t.Fatalf("run 3 exited %d, want 5 after the CLI hit the limit\nstderr:\n%s", code, stderr)
	}
}
