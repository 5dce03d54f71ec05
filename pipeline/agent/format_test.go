package agent

import (
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// A format reports cost when it says so (costReporter); text and an
// unknown name do not.
func TestReportsCost(t *testing.T) {
	for format, want := range map[string]bool{"claude": true, "codex": true, "gemini": true, "text": false, "": false, "yaml": false} {
		if got := ReportsCost(format); got != want {
			t.Errorf("ReportsCost(%q) = %v, want %v", format, got, want)
		}
	}
}

// FormatNames is sorted and holds the formats of the presets and text
// (others may join: the schema's #Format is generated from the registry).
func TestFormatNames(t *testing.T) {
	names := FormatNames()
	if !slices.IsSorted(names) {
		t.Errorf("FormatNames() = %q, not sorted", names)
	}
	for _, want := range []string{"claude", "codex", "gemini", "text"} {
		if !slices.Contains(names, want) {
			t.Errorf("FormatNames() = %q, want %s among them", names, want)
		}
	}
	if _, err := NewFormat("", io.Discard, io.Discard); err != nil {
		t.Errorf(`NewFormat("") = %v, want the text format`, err)
	}
	_, err := NewFormat("claude-code", io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `"claude-code"`) || !strings.Contains(err.Error(), strings.Join(names, ", ")) {
		t.Errorf("unknown format: %v", err)
	}
}

// Each fixture is read the same whole and in chunks, and gives what the
// CLI said.
func TestFormats(t *testing.T) {
	watch := []string{"requires manual", "cannot be automated"}
	tests := []struct {
		format, file string
		want         Report // Tail, TextBytes and OutputBytes are not compared
	}{
		{"claude", "claude.json", Report{
			Status: status.Done, Promise: "ALL TESTS PASS", PromiseFound: true, Phrases: []string{"requires manual"},
			Usage: Usage{CostUSD: 0.1842319, CostKnown: true, Turns: 9, Subtype: "success",
				SessionID: "7b3b5a5e-2c1f-4a57-9a0e-3f0d8c6e1b42",
				Tokens:    Tokens{Input: 38 + 9412 + 187230, CachedInput: 187230, CacheWrite: 9412, Output: 2904},
				Models:    map[string]Tokens{"claude-sonnet-4-5-20250929": {Input: 38 + 9412 + 187230, CachedInput: 187230, CacheWrite: 9412, Output: 2904}}},
		}},
		{"claude", "claude_stream.jsonl", Report{
			Status: status.Continue, // the STUCK in the tool result is not the final text
			Usage: Usage{CostUSD: 0.0847, CostKnown: true, Turns: 4, Subtype: "success",
				SessionID: "4f0c2d8e-91a3-4b6e-8c55-0e7d1a2b3c4d",
				Tokens:    Tokens{Input: 12 + 6018 + 60831, CachedInput: 60831, CacheWrite: 6018, Output: 702},
				Models:    map[string]Tokens{"claude-sonnet-4-5-20250929": {Input: 12 + 6018 + 60831, CachedInput: 60831, CacheWrite: 6018, Output: 702}}},
		}},
		{"claude", "claude_verbose.json", Report{
			Status: status.Continue,
			Usage: Usage{CostUSD: 0.0847, CostKnown: true, Turns: 4, Subtype: "success",
				SessionID: "4f0c2d8e-91a3-4b6e-8c55-0e7d1a2b3c4d",
				Tokens:    Tokens{Input: 12 + 6018 + 60831, CachedInput: 60831, CacheWrite: 6018, Output: 702},
				Models:    map[string]Tokens{"claude-sonnet-4-5-20250929": {Input: 12 + 6018 + 60831, CachedInput: 60831, CacheWrite: 6018, Output: 702}}},
		}},
		{"claude", "claude_max_turns.jsonl", Report{
			Status: status.Continue, // from the last assistant text: the result has none
			Usage: Usage{CostUSD: 0.0213, CostKnown: true, Turns: 3, Subtype: "error_max_turns", IsError: true,
				ErrorMessage: "error_max_turns", SessionID: "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4",
				Tokens: Tokens{Input: 9 + 2048 + 4096, CachedInput: 4096, CacheWrite: 2048, Output: 171}},
		}},
		{"codex", "codex.jsonl", Report{
			Status: status.Rotate, Promise: "retry budget fixed", PromiseFound: true, Phrases: []string{"cannot be automated"},
			Usage: Usage{Turns: 1, SessionID: "0199a213-81c0-7800-8aa1-bbab2a035a53",
				Tokens: Tokens{Input: 24763, CachedInput: 24448, Output: 122}},
		}},
		{"codex", "codex_usage_limit.jsonl", Report{
			Status: status.None,
			Usage: Usage{Turns: 1, IsError: true, SessionID: "019a7c41-2b3d-7e20-9f11-5c6d7e8f9a0b",
				ErrorMessage: "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM."},
			RateLimited:      true,
			RateLimitMessage: "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.",
			ResetAt:          time.Date(2026, time.March, 10, 15, 28, 0, 0, time.UTC),
		}},
		{"gemini", "gemini.json", Report{
			Status: status.None, // its last line quotes the status ("> RALPH_STATUS: DONE"): a citation, no claim
			Usage: Usage{SessionID: "c4e1a9f2-7b3d-4e8a-9c21-5d6f7a8b9c0d",
				Tokens: Tokens{Input: 24939 + 1200, CachedInput: 14471, Output: 1321 + 1450 + 35},
				Models: map[string]Tokens{"gemini-2.5-flash": {Input: 1200, Output: 35}, "gemini-2.5-pro": {Input: 24939, CachedInput: 14471, Output: 1321 + 1450}}},
		}},
		{"gemini", "gemini_stream.jsonl", Report{
			Status: status.Done,
			Usage:  Usage{SessionID: "abc123", Tokens: Tokens{Input: 4100, CachedInput: 2048, Output: 170}},
		}},
		{"gemini", "gemini_quota.json", Report{
			Status: status.None,
			Usage: Usage{IsError: true, SessionID: "0f1e2d3c-4b5a-4968-8776-655443322110",
				ErrorMessage: "You have exhausted your capacity on this model. Your quota will reset after 21h53m56s."},
			RateLimited:      true,
			RateLimitMessage: "You have exhausted your capacity on this model. Your quota will reset after 21h53m56s.",
			ResetAt:          testNow.Add(21*time.Hour + 53*time.Minute + 56*time.Second),
		}},
	}
	for _, tt := range tests {
		data := fixture(t, tt.file)
		got := scan(t, tt.format, data, watch...)
		for seed := range uint64(5) {
			if chunked := scanChunks(t, tt.format, data, seed, watch...); !reflect.DeepEqual(chunked, got) {
				t.Errorf("%s: chunked (seed %d) differs:\n%+v\n%+v", tt.file, seed, chunked, got)
			}
		}
		if got.OutputBytes != int64(len(data)) || got.TextBytes == 0 && !got.Usage.IsError {
			t.Errorf("%s: %d output bytes, %d text bytes", tt.file, got.OutputBytes, got.TextBytes)
		}
		got.Tail, got.TextBytes, got.OutputBytes = "", 0, 0
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, tt.want)
		}
	}
}

// The final text of each format, as the tail shows it.
func TestFormatFinalText(t *testing.T) {
	tests := []struct{ format, file, want string }{
		{"claude", "claude_stream.jsonl", "Fixed the off-by-one in `Budget.Allow`; the tests pass now.\n\nRALPH_STATUS: CONTINUE"},
		{"codex", "codex.jsonl", "Fixed the off-by-one in `Budget.Allow`; `go test ./pipeline/retry/...` passes.\n\nThis cannot be automated further without credentials.\n\n<PROMISE>\n  retry budget fixed\n</Promise>\n\nRALPH_STATUS: ROTATE"},
		{"gemini", "gemini_stream.jsonl", "Blocked specs are skipped now.\nRALPH_STATUS: DONE"},
		{"gemini", "gemini.json", "I updated `scheduler.go` so that blocked specs are skipped.\n\nAll tests pass.\n\n> RALPH_STATUS: DONE\n"},
		{"text", "codex.jsonl", string(fixture(t, "codex.jsonl"))},
	}
	for _, tt := range tests {
		if got := scan(t, tt.format, fixture(t, tt.file)).Tail; got != tt.want {
			t.Errorf("%s as %s: final text %q, want %q", tt.file, tt.format, got, tt.want)
		}
	}
}

// Lines that are not JSON are logged but do not make the final text, and
// JSON lines too large to parse are skipped.
func TestStructuredIgnoresNoise(t *testing.T) {
	in := "RALPH_STATUS: DONE\n" +
		`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"` + strings.Repeat("y", 100) + `"}` + "\n" +
		"<promise>noise</promise>\n"
	r := scan(t, "claude", []byte(in))
	if r.Status != status.None || r.PromiseFound || r.TextBytes != 100 || r.Usage.Turns != 1 {
		t.Errorf("report %+v", r)
	}
}

// In a box, Codex's own sandbox is set aside (danger-full-access, before
// the "-" of the prompt), whatever sandbox the argv asked for; with no
// box, and for a format without a sandbox of its own, argv is kept.
func TestBoxedArgv(t *testing.T) {
	boxes, err := box.Open(box.Cgroup, "")
	if err != nil {
		t.Skip(err)
	}
	defer boxes.Close()
	h := &Host{Boxes: boxes}
	for _, tc := range []struct {
		format string
		argv   []string
		want   []string
	}{
		{"codex", []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "-"}, []string{"codex", "exec", "--json", "--sandbox", "danger-full-access", "-"}},
		{"codex", []string{"codex", "exec", "--full-auto", "-s=read-only"}, []string{"codex", "exec", "--sandbox", "danger-full-access"}},
		{"claude", []string{"claude", "-p"}, []string{"claude", "-p"}},
	} {
		argv := slices.Clone(tc.argv)
		if got := h.boxedArgv(tc.format, argv); !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: got %q, want %q", tc.format, tc.argv, got, tc.want)
		}
		if !slices.Equal(argv, tc.argv) {
			t.Errorf("boxedArgv changed its argument: %q", argv)
		}
		if got := (&Host{}).boxedArgv(tc.format, tc.argv); !slices.Equal(got, tc.argv) {
			t.Errorf("with no box: %q", got)
		}
	}
}
