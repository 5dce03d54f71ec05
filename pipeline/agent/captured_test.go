package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// TestCapturedOutput parses the real output of each CLI, captured from the
// end-to-end tests of cmd/ralph-ci (claude 2.1.332, codex 0.169.0,
// gemini-cli 0.61.0 against their scripted API servers; see
// captureHistory there): the status, the promise and what each CLI
// reports about usage must come out as the CLI meant them.
func TestCapturedOutput(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		cost         bool // the CLI reports a cost in USD
		tokens       bool // ... or at least token counts
	}{
		{"claude-json.log", "claude", true, true},
		{"claude-stream-json.log", "claude", true, true},
		{"codex-exec-json.log", "codex", false, true},
		{"gemini-json.log", "gemini", false, true},
		{"gemini-stream-json.log", "gemini", false, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "captured", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{len(raw), 7} { // whole, and in small chunks
				sc, err := NewScanner(tc.format, []string{"IMPLEMENTATION_COMPLETE"})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(raw); i += chunk {
					_, _ = sc.Write(raw[i:min(i+chunk, len(raw))])
				}
				r := sc.Report()
				if r.Status != status.Done || !r.PromiseFound || r.Promise != "IMPLEMENTATION_COMPLETE" || len(r.Phrases) != 1 {
					t.Errorf("chunk %d: status %q, promise %q (%v), phrases %q", chunk, r.Status, r.Promise, r.PromiseFound, r.Phrases)
				}
				if tc.cost && (!r.Usage.CostKnown || r.Usage.CostUSD <= 0) {
					t.Errorf("chunk %d: cost %v (known %v), want > 0", chunk, r.Usage.CostUSD, r.Usage.CostKnown)
				}
				if tc.tokens && r.Usage.Tokens.Input+r.Usage.Tokens.Output == 0 {
					t.Errorf("chunk %d: no token counts: %+v", chunk, r.Usage)
				}
				if r.Usage.IsError || r.RateLimited {
					t.Errorf("chunk %d: error %v, rate limited %v", chunk, r.Usage.IsError, r.RateLimited)
				}
			}
		})
	}
}

// TestCapturedRateLimit reads what claude 2.1.332 really prints when the
// API answers 429 rate_limit_error to every call (CLAUDE_CODE_MAX_RETRIES
// shortening its retries), in each output format: a rate limit without a
// status, so that the pool moves on. The stream cut after the CLI's
// api_retry events is what a rotation timeout leaves while it retries. A
// CLI upgrade that changes these messages fails here.
func TestCapturedRateLimit(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join("testdata", "captured", "claude-stream-json-429.log"))
	if err != nil {
		t.Fatal(err)
	}
	var retries []byte // init and the api_retry events only
	for _, line := range bytes.SplitAfter(stream, []byte("\n")) {
		if bytes.Contains(line, []byte(`"type":"system"`)) {
			retries = append(retries, line...)
		}
	}
	for _, tc := range []struct {
		name, format string
		raw          []byte
		message      string
	}{
		{"claude-stream-json-429.log", "claude", nil, "API Error: Request rejected (429)"},
		{"claude-json-429.log", "claude", nil, "API Error: Request rejected (429)"},
		{"claude-text-429.log", "text", nil, "API Error: Request rejected (429)"},
		{"stream cut while retrying", "claude", retries, "api_retry: error_status 429 (rate_limit), attempt 1 of 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.raw
			if raw == nil {
				var err error
				if raw, err = os.ReadFile(filepath.Join("testdata", "captured", tc.name)); err != nil {
					t.Fatal(err)
				}
			}
			for _, chunk := range []int{len(raw), 5} {
				sc, err := NewScanner(tc.format, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(raw); i += chunk {
					_, _ = sc.Write(raw[i:min(i+chunk, len(raw))])
				}
				r := sc.Report()
				if !r.RateLimited || !strings.Contains(r.RateLimitMessage, tc.message) || r.Status != status.None {
					t.Errorf("chunk %d: rate limited %v (%q), status %q; want a limit saying %q and no status", chunk, r.RateLimited, r.RateLimitMessage, r.Status, tc.message)
				}
			}
		})
	}
}

// TestCapturedFailures reads what claude 2.1.332 prints when it cannot
// start (root with permissions skipped), when its own --max-budget-usd
// stops it (the result's usage is all zeros: the tokens are only in
// modelUsage), when the API's stream is cut mid-message, and when the
// model answers with nothing (captured by TestCaptureClaudeFixtures in
// cmd/ralph-ci). None has a status; only the first is a start-up failure.
func TestCapturedFailures(t *testing.T) {
	for _, tc := range []struct {
		file    string
		startup string // in StartupFailure
		isError bool
		message string // in Usage.ErrorMessage
		tokens  bool   // tokens and a cost were reported
	}{
		{"claude-stream-json-root.log", "cannot be used with root/sudo privileges", false, "", false},
		{"claude-json-root.log", "cannot be used with root/sudo privileges", false, "", false},
		{"claude-stream-json-budget.log", "", true, "error_max_budget_usd: Reached maximum budget ($0.01)", true},
		{"claude-stream-json-truncated.log", "", true, "Connection to the API was lost (ECONNRESET)", false},
		{"claude-stream-json-empty.log", "", false, "", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "captured", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{len(raw), 7} {
				sc, err := NewScanner("claude", nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < len(raw); i += chunk {
					_, _ = sc.Write(raw[i:min(i+chunk, len(raw))])
				}
				r := sc.Report()
				if r.Status != status.None || r.RateLimited {
					t.Errorf("chunk %d: status %q, rate limited %v; want no status, no limit", chunk, r.Status, r.RateLimited)
				}
				if (tc.startup == "") != (r.StartupFailure == "") || !strings.Contains(r.StartupFailure, tc.startup) {
					t.Errorf("chunk %d: start-up failure %q, want %q", chunk, r.StartupFailure, tc.startup)
				}
				if r.Usage.IsError != tc.isError || !strings.Contains(r.Usage.ErrorMessage, tc.message) {
					t.Errorf("chunk %d: error %v %q, want %v %q", chunk, r.Usage.IsError, r.Usage.ErrorMessage, tc.isError, tc.message)
				}
				if got := r.Usage.Tokens.Input > 0 && r.Usage.CostUSD > 0; got != tc.tokens {
					t.Errorf("chunk %d: tokens %+v, cost %v; want reported: %v", chunk, r.Usage.Tokens, r.Usage.CostUSD, tc.tokens)
				}
			}
		})
	}
}

// A subscription's refusal comes as a rate_limit_event (its shape is
// Claude Code 2.1.332's SDK schema: status allowed, allowed_warning or
// rejected, resetsAt in Unix seconds): a rejection is a rate limit with
// that reset time; an allowed event, warning or not, is not.
func TestClaudeRateLimitEvent(t *testing.T) {
	for _, tc := range []struct {
		status  string
		limited bool
	}{{"rejected", true}, {"allowed_warning", false}, {"allowed", false}} {
		raw := `{"type":"system","subtype":"init","session_id":"s"}
{"type":"rate_limit_event","rate_limit_info":{"status":"` + tc.status + `","resetsAt":1795276800,"rateLimitType":"five_hour","isUsingOverage":false},"uuid":"u","session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"result":"Stopped.","total_cost_usd":0}
`
		sc, _ := NewScanner("claude", nil)
		_, _ = sc.Write([]byte(raw))
		r := sc.Report()
		reset := r.ResetAt.Equal(time.Unix(1795276800, 0))
		if r.RateLimited != tc.limited || reset != tc.limited {
			t.Errorf("%s: rate limited %v, reset %v (%q); want limited and the reset read: %v", tc.status, r.RateLimited, r.ResetAt, r.RateLimitMessage, tc.limited)
		}
	}
}
