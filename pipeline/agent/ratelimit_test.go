package agent

import (
	"strings"
	"testing"
	"time"
)

// zone loads an IANA zone as the scanner does: UTC (testNow's zone) when
// the system has no zone data.
func zone(name string) *time.Location {
	if l, err := time.LoadLocation(name); err == nil {
		return l
	}
	return time.UTC
}

// Real messages of the agent CLIs, each with where it was seen. A zero
// reset means the message does not say when the limit ends. testNow is
// 2026-03-10 14:00 UTC.
var limitMessages = []struct {
	source, line string
	reset        time.Time
}{
	// Claude Code.
	{"anthropics/claude-code#6119 (title; what claude -p prints)",
		"Claude AI usage limit reached|1755615600", time.Unix(1755615600, 0)},
	{"anthropics/claude-code#6119 (description)",
		"Claude usage limit reached. Your limit will reset at 5pm (Europe/Warsaw).",
		time.Date(2026, time.March, 10, 17, 0, 0, 0, zone("Europe/Warsaw"))},
	{"anthropics/claude-code#6392",
		"5-hour limit reached ∙ resets 5am", time.Date(2026, time.March, 11, 5, 0, 0, 0, time.UTC)},
	{"anthropics/claude-code#42042",
		"You've hit your limit · resets 8pm (Europe/Berlin)", time.Date(2026, time.March, 10, 20, 0, 0, 0, zone("Europe/Berlin"))},
	{"anthropics/claude-code#51981",
		"You've hit your limit · resets Apr 23 at 4pm (America/Recife)", time.Date(2026, time.April, 23, 16, 0, 0, 0, zone("America/Recife"))},
	{"anthropics/claude-code#74079",
		"You've hit your session limit · resets 12:50am (America/Los_Angeles)", time.Date(2026, time.March, 11, 0, 50, 0, 0, zone("America/Los_Angeles"))},
	{"anthropics/claude-code#22976 (a date already past this year: next year)",
		"You've hit your limit - resets Feb 7, 11am (Asia/Seoul)/login to switch to an API usage-billed account.",
		time.Date(2027, time.February, 7, 11, 0, 0, 0, zone("Asia/Seoul"))},
	{"anthropics/claude-code#6119 (error log)",
		`Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."},"request_id":"req_011CSHCYzBstm5tDEsXB7mev"}`, time.Time{}},
	{"anthropics/claude-code#7218",
		`API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}) · Retrying in 4 seconds… (attempt 4/10)`, time.Time{}},
	{"claude 2.1.332 against a server answering 429 rate_limit_error (testdata/captured/claude-text-429.log)",
		"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.", time.Time{}},
	{"anthropics/claude-code#87317",
		"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check https://status.claude.com/.", time.Time{}},
	// Codex.
	{"openai/codex#3899",
		"■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11 minutes.",
		testNow.Add(5*24*time.Hour + 22*time.Hour + 11*time.Minute)},
	{"openai/codex#26668",
		"You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at Jul 5th, 2026 8:19 PM.",
		time.Date(2026, time.July, 5, 20, 19, 0, 0, time.UTC)},
	{"openai/codex codex-rs/core/src/error.rs (UsageLimitReachedError, Pro plan, same day)",
		"You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.",
		time.Date(2026, time.March, 10, 15, 28, 0, 0, time.UTC)},
	{"raine/claude-code-proxy#139 (the ChatGPT backend's error event behind Codex)",
		`{"type":"error","status_code":429,"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1788879437,"resets_in_seconds":9568}}`,
		time.Unix(1788879437, 0)},
	{"openai/codex#10059",
		"Stream disconnected before completion: Rate limit reached for organization org-ABC on tokens per min (TPM): Limit 250000, Used 250000, Requested 89623. Please try again in 21.509s. Visit https://platform.openai.com/account/rate-limits to learn more.",
		testNow.Add(21509 * time.Millisecond)},
	{"openai/codex#3764",
		"■ stream disconnected before completion: Rate limit is exceeded. Try again in 11 seconds.", testNow.Add(11 * time.Second)},
	{"openai/codex#26040",
		"exceeded retry limit, last status: 429 Too Many Requests", time.Time{}},
	{"openai/codex codex-rs/core/src/error.rs (CodexErr::QuotaExceeded)",
		"Quota exceeded. Check your plan and billing details.", time.Time{}},
	// Gemini CLI.
	{"google-gemini/gemini-cli#22107 (stderr while retrying)",
		"Attempt 1 failed: You have exhausted your capacity on this model. Your quota will reset after 5s.. Retrying after 6173ms...",
		testNow.Add(5 * time.Second)},
	{"google-gemini/gemini-cli packages/core/src/utils/googleQuotaErrors.test.ts",
		"You have exhausted your capacity on this model. Your quota will reset after 0s.", testNow},
	{"google-gemini/gemini-cli#1905",
		`[API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\":\n  \"RESOURCE_EXHAUSTED\"\n  }\n}\n","code":429,"status":"Too Many Requests"}}]`, time.Time{}},
	{"google-gemini/gemini-cli#1848 (pretty-printed error, one line of it)",
		`      "status": "RESOURCE_EXHAUSTED"`, time.Time{}},
	{"google-gemini/gemini-cli#3796",
		"⚡ You have reached your daily quota limit.", time.Time{}},
}

func TestRateLimitMessages(t *testing.T) {
	for _, m := range limitMessages {
		formats := FormatNames()
		if strings.HasPrefix(m.line, "{") {
			// A JSON event: only where Codex's events are expected.
			formats = []string{"text", "codex"}
		}
		for _, format := range formats {
			// As a plain line between others, as the CLIs print them.
			r := scan(t, format, []byte("starting\n"+m.line+"\nbye\n"))
			if !r.RateLimited || r.RateLimitMessage != strings.TrimSpace(m.line) {
				t.Errorf("%s as %s: not detected: %+v", m.source, format, r)
				continue
			}
			if !r.ResetAt.Equal(m.reset) {
				t.Errorf("%s: reset %v, want %v", m.source, r.ResetAt, m.reset)
			}
		}
	}
}

// A reset time wrapped onto the next line is read; one further away is not.
func TestRateLimitResetOnNextLine(t *testing.T) {
	// Wrapped by the terminal, as pasted in openai/codex#3899: the number
	// without its unit is not read, and the next line only says "minutes.".
	in := "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11\n\nminutes.\nlater: try again in 9 days\n"
	if r := scan(t, "text", []byte(in)); !r.RateLimited || !r.ResetAt.Equal(testNow.Add(5*24*time.Hour+22*time.Hour)) {
		t.Errorf("reset %v", r.ResetAt)
	}
	in = "You've hit your usage limit. To get more access now, send a request to your admin.\nor try again at 3:28 PM.\n"
	if r := scan(t, "text", []byte(in)); !r.ResetAt.Equal(time.Date(2026, time.March, 10, 15, 28, 0, 0, time.UTC)) {
		t.Errorf("reset %v", r.ResetAt)
	}
}

// Prose and tool output about rate limits are not rate limits.
func TestRateLimitNegatives(t *testing.T) {
	for _, line := range []string{
		"Implemented a rate limiter that answers 429 to abusive clients.",
		"Added handling for rate_limit_error responses in client.go",
		"return status.Error(codes.ResourceExhausted, \"quota\")",
		"the limit is 5; quota checks pass",
		"try again at 3pm",
		"",
	} {
		if r := scan(t, "text", []byte(line+"\n")); r.RateLimited || !r.ResetAt.IsZero() {
			t.Errorf("%q: rate limited %v, reset %v", line, r.RateLimited, r.ResetAt)
		}
	}
	// In structured formats the agent's tool output and long answers are
	// not searched: the codex fixture's command printed "429 Too Many
	// Requests", and a long Claude answer may quote a limit message.
	if r := scan(t, "codex", fixture(t, "codex.jsonl")); r.RateLimited {
		t.Errorf("codex tool output taken for a rate limit: %q", r.RateLimitMessage)
	}
	answer := `{"type":"result","subtype":"success","is_error":false,"result":"Handled the case:\n\nYou've hit your usage limit. Try again later."}` + "\n"
	if r := scan(t, "claude", []byte(answer)); r.RateLimited {
		t.Errorf("claude answer taken for a rate limit: %q", r.RateLimitMessage)
	}
}

// Claude Code's usage-limit result is a short single line: it is searched.
func TestRateLimitClaudeResult(t *testing.T) {
	in := `{"type":"result","subtype":"success","is_error":true,"duration_ms":412,"num_turns":1,"result":"Claude AI usage limit reached|1755615600","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}` + "\n"
	r := scan(t, "claude", []byte(in))
	if !r.RateLimited || !r.ResetAt.Equal(time.Unix(1755615600, 0)) || r.Usage.ErrorMessage != "Claude AI usage limit reached|1755615600" {
		t.Errorf("report %+v", r)
	}
}

func TestResetTimeForms(t *testing.T) {
	tests := []struct {
		line string
		want time.Time
	}{
		{"usage limit reached|1755615600000", time.UnixMilli(1755615600000)},
		{"Please retry in 12.5s", testNow.Add(12500 * time.Millisecond)},
		{"try again in 2 days 17 hours 14 minutes.", testNow.Add(2*24*time.Hour + 17*time.Hour + 14*time.Minute)},
		{"try again in 250ms", testNow.Add(250 * time.Millisecond)},
		{"resets 12pm", time.Date(2026, time.March, 11, 12, 0, 0, 0, time.UTC)},
		{"resets 2pm", time.Date(2026, time.March, 10, 14, 0, 0, 0, time.UTC)},
		{"resets 1:59pm", time.Date(2026, time.March, 11, 13, 59, 0, 0, time.UTC)},
		{"resets 3pm (Not/AZone)", time.Date(2026, time.March, 10, 15, 0, 0, 0, time.UTC)},
		{"resets 13pm", time.Time{}},
		{"resets Mar 9 at 4pm", time.Date(2026, time.March, 9, 16, 0, 0, 0, time.UTC)},
		{"resets Jan 2nd, 2027 9:05 AM and try again in 1s", time.Date(2027, time.January, 2, 9, 5, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		got, ok := resetTime(tt.line, testNow)
		if ok != !tt.want.IsZero() || !got.Equal(tt.want) {
			t.Errorf("resetTime(%q) = %v, %v; want %v", tt.line, got, ok, tt.want)
		}
	}
}
