package claude

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// TestCaptureClaudeFixtures records what the installed Claude Code CLI
// prints in the cases pipeline/agent/testdata/captured keeps a fixture of
// (TestCapturedOutput and TestCapturedFailures there read them): run with
// RALPH_CAPTURE_DIR set after raising the pin in .ci/run, and copy the
// files over. Without RALPH_CAPTURE_DIR it is skipped: the fixtures are
// checked in, and the real-CLI end-to-end tests run the CLI every time.
func TestCaptureClaudeFixtures(t *testing.T) {
	out := os.Getenv("RALPH_CAPTURE_DIR")
	if out == "" {
		t.Skip("set RALPH_CAPTURE_DIR to record the Claude Code fixtures")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	truncated := func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_cut\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}}\n\n")
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"I wrote hel\"}}\n\n")
		w.(http.Flusher).Flush()
		// The connection ends here, mid-message.
		panic(http.ErrAbortHandler)
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc // nil: the scripted messages server
		empty   bool             // the scripted server answers with no text
		args    []string
	}{
		{"claude-stream-json-429", answer429, false, []string{"--output-format", "stream-json", "--verbose"}},
		{"claude-json-429", answer429, false, []string{"--output-format", "json"}},
		{"claude-text-429", answer429, false, []string{"--output-format", "text"}},
		{"claude-stream-json-root", nil, false, []string{"--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}},
		{"claude-json-root", nil, false, []string{"--output-format", "json", "--dangerously-skip-permissions"}},
		{"claude-stream-json-budget", nil, false, []string{"--output-format", "stream-json", "--verbose", "--max-budget-usd", "0.01"}},
		{"claude-stream-json-truncated", truncated, false, []string{"--output-format", "stream-json", "--verbose"}},
		{"claude-stream-json-empty", nil, true, []string{"--output-format", "stream-json", "--verbose"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, configDir := claudeHome(t)
			dir := t.TempDir()
			url := ""
			if tc.handler != nil {
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				url = srv.URL
			} else {
				srv := newMessagesServer(t, filepath.Join(dir, "hello.txt"), "hello\n", "IMPLEMENTATION_COMPLETE")
				srv.empty = tc.empty
				url = srv.URL()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "claude", append([]string{"-p", "--permission-mode", "acceptEdits"}, tc.args...)...)
			cmd.Dir = dir
			cmd.Env = append(e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_"),
				"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=sk-ant-test-not-a-real-key",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
				"CLAUDE_CONFIG_DIR="+configDir, "CLAUDE_CODE_MAX_RETRIES=1")
			cmd.Stdin = strings.NewReader("Create hello.txt.")
			raw, err := cmd.CombinedOutput()
			t.Logf("%s: %v, %d bytes", tc.name, err, len(raw))
			if err := os.WriteFile(filepath.Join(out, tc.name+".log"), raw, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}
