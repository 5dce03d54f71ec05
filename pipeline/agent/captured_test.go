package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// TestCapturedOutput parses the real output of each CLI, captured from the
// end-to-end tests of cmd/ralph-ci (claude 2.1.197, codex 0.169.0,
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

// TestCapturedRateLimit reads what claude 2.1.197 really prints when the
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
		{"stream cut while retrying", "claude", retries, "api_retry: error_status 429 (rate_limit), attempt 2 of 2"},
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
