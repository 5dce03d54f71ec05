package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// claudeFormat reads Claude Code's JSON output:
//
//   - claude -p --output-format json prints one object at the end:
//     {"type":"result","subtype":"success","is_error":false,"duration_ms":…,
//     "num_turns":6,"result":"<final text>","session_id":…,
//     "total_cost_usd":0.0847,"usage":{"input_tokens":…,…}};
//     with --verbose it prints an array of all messages instead, the result
//     last;
//   - --output-format stream-json --verbose prints one message per line:
//     {"type":"system","subtype":"init",…}, {"type":"assistant","message":
//     {"content":[{"type":"text","text":…},{"type":"tool_use",…}]}},
//     {"type":"user",…} (tool results), and the same result object last.
//
// Error results (subtype "error_max_turns", "error_during_execution") may
// have no "result": the final text is then the last assistant text.
//
// Since 2.1.2xx the result also carries modelUsage, the tokens and cost
// per model, subagents included (usage counts the main conversation's
// only): the tokens are read from it when present. A subscription's
// refusal comes as {"type":"rate_limit_event","rate_limit_info":{"status":
// "rejected","resetsAt":<unix seconds>,"rateLimitType":"five_hour",…}}; it
// is handed to the limit scanner in the CLI's own machine form, "Claude AI
// usage limit reached|<unix seconds>", from which the reset time is read.
type claudeFormat struct {
	structured
	result    *string
	assistant string
	usage     Usage
	// stream adds up the usage of the assistant messages while the CLI
	// streams (stream-json), before the result tells the totals.
	stream claudeStream
}

// claudeStream adds up the usage of streamed assistant messages. The CLI
// writes one assistant message per content block, each repeating its API
// message's id and usage so far: the usage of an id counts once, its
// last copy's (ids come one after the other).
type claudeStream struct {
	done    map[string]Tokens // per model, of the ids before lastID
	lastID  string
	model   string
	last    Tokens
	started bool
	models  map[string]Tokens // totals' result
}

var (
	_ Format       = (*claudeFormat)(nil)
	_ costReporter = (*claudeFormat)(nil)
	_ apiHolder    = (*claudeFormat)(nil)
	_ judgeCLI     = (*claudeFormat)(nil)
)

// program implements judgeCLI.
func (*claudeFormat) program() string { return "claude" }

// smallModel implements judgeCLI: Anthropic's small model.
func (*claudeFormat) smallModel() string { return "claude-haiku-4-5" }

// judgeArgs implements judgeCLI: the model replaced, and the permission
// mode default (in -p mode every tool that asks for permission is
// refused) with the editing tools disallowed.
func (*claudeFormat) judgeArgs(argv []string, model string) []string {
	argv = withoutFlags(argv, []string{"--model", "--permission-mode"}, []string{"--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"})
	return append(argv, "--model", model, "--permission-mode", "default", "--disallowedTools", "Bash", "Edit", "Write", "NotebookEdit")
}

// reportsCost implements costReporter: Claude Code reports its cost.
func (*claudeFormat) reportsCost() {}

// modelAPI implements apiHolder: where the CLI reads its key and its
// API's base URL.
func (*claudeFormat) modelAPI() ModelAPI {
	return ModelAPI{Keys: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}, BaseURL: "ANTHROPIC_BASE_URL", Upstream: "https://api.anthropic.com"}
}

func newClaudeFormat(text, diag io.Writer) Format {
	f := &claudeFormat{}
	f.structured = newStructured(text, diag, f.handle)
	return f
}

// claudeMessage holds the members of Claude Code's messages read here.
type claudeMessage struct {
	Type         string          `json:"type"`
	Subtype      string          `json:"subtype"`
	IsError      bool            `json:"is_error"`
	NumTurns     int             `json:"num_turns"`
	Result       *string         `json:"result"`
	SessionID    string          `json:"session_id"`
	TotalCostUSD *float64        `json:"total_cost_usd"`
	Usage        *claudeUsage    `json:"usage"`
	Message      json.RawMessage `json:"message"`
	// ModelUsage is the result's per-model usage, subagents included.
	ModelUsage map[string]claudeModelUsage `json:"modelUsage"`
	// Errors are an error result's messages ("Reached maximum budget
	// ($0.01)").
	Errors []string `json:"errors"`
	// RateLimitInfo is a rate_limit_event's.
	RateLimitInfo *struct {
		Status        string `json:"status"` // allowed, allowed_warning, rejected
		ResetsAt      int64  `json:"resetsAt"`
		RateLimitType string `json:"rateLimitType"`
	} `json:"rate_limit_info"`
	// api_retry events (stream-json): the API call failed with
	// ErrorStatus and the CLI retries (Attempt of MaxRetries).
	ErrorStatus int    `json:"error_status"`
	Error       string `json:"error"`
	Attempt     int    `json:"attempt"`
	MaxRetries  int    `json:"max_retries"`
}

type claudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// claudeModelUsage is one model's entry in a result's modelUsage.
type claudeModelUsage struct {
	InputTokens              int64 `json:"inputTokens"`
	OutputTokens             int64 `json:"outputTokens"`
	CacheReadInputTokens     int64 `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"`
}

func (f *claudeFormat) handle(doc []byte) bool {
	if doc[0] != '[' {
		return f.read(doc)
	}
	var msgs []json.RawMessage
	if json.Unmarshal(doc, &msgs) != nil {
		return false
	}
	for _, m := range msgs {
		f.read(m)
	}
	return true
}

// read reads one message, and tells whether it is one of Claude Code's.
// Only system, assistant and result messages are decoded: user messages
// carry tool results, which can be large.
func (f *claudeFormat) read(raw []byte) bool {
	typ, ok := docType(raw)
	switch {
	case !ok || typ == "":
		return false
	case typ != "system" && typ != "assistant" && typ != "result" && typ != "rate_limit_event":
		return true
	}
	var m claudeMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	if m.SessionID != "" {
		f.usage.SessionID = m.SessionID
	}
	switch m.Type {
	case "system":
		if m.Subtype == "api_retry" && m.ErrorStatus != 0 {
			// A message the limit scanner reads: a CLI stopped while it
			// retries a 429 (a rotation timeout) was rate limited.
			f.message(fmt.Sprintf("api_retry: error_status %d (%s), attempt %d of %d", m.ErrorStatus, clip(m.Error, 100), m.Attempt, m.MaxRetries))
		}
	case "rate_limit_event":
		if i := m.RateLimitInfo; i != nil && i.Status == "rejected" {
			msg := "Claude AI usage limit reached"
			if i.ResetsAt > 0 {
				msg += fmt.Sprintf("|%d", i.ResetsAt)
			}
			f.message(msg + " (rate_limit_event, " + clip(i.RateLimitType, 40) + ")")
		}
	case "assistant":
		var msg assistantMessage
		if json.Unmarshal(m.Message, &msg) != nil {
			break
		}
		if t := msg.text(); t != "" {
			f.assistant = t
		}
		if f.live != nil && f.result == nil && f.stream.add(msg) {
			f.usage.Tokens, f.usage.Models = f.stream.totals()
			f.live(f.usage)
		}
	case "result":
		f.result = m.Result
		u := &f.usage
		u.Subtype, u.Turns = m.Subtype, m.NumTurns
		u.IsError = m.IsError || strings.HasPrefix(m.Subtype, "error")
		if m.TotalCostUSD != nil {
			u.CostUSD, u.CostKnown = *m.TotalCostUSD, true
		}
		if len(m.ModelUsage) > 0 {
			u.Tokens, u.Models = Tokens{}, make(map[string]Tokens, len(m.ModelUsage))
			for model, t := range m.ModelUsage {
				mt := claudeTokens(t.InputTokens, t.CacheCreationInputTokens, t.CacheReadInputTokens, t.OutputTokens)
				u.Models[clip(model, maxModel)] = u.Models[clip(model, maxModel)].Add(mt)
				u.Tokens = u.Tokens.Add(mt)
			}
		} else if t := m.Usage; t != nil {
			u.Tokens, u.Models = claudeTokens(t.InputTokens, t.CacheCreationInputTokens, t.CacheReadInputTokens, t.OutputTokens), nil
		}
		if f.live != nil {
			f.live(*u)
		}
		u.ErrorMessage = ""
		if u.IsError {
			u.ErrorMessage = m.Subtype
			if len(m.Errors) > 0 {
				u.ErrorMessage = clip(m.Subtype+": "+strings.Join(m.Errors, "; "), maxMessage)
			}
			if m.Result != nil && *m.Result != "" {
				u.ErrorMessage = clip(*m.Result, maxMessage)
			}
		}
	}
	return true
}

// claudeTokens normalises Claude's counts: its input_tokens leave out the
// cache reads and writes, which Tokens.Input includes.
func claudeTokens(input, cacheWrite, cacheRead, output int64) Tokens {
	return Tokens{Input: input + cacheWrite + cacheRead, CachedInput: cacheRead, CacheWrite: cacheWrite, Output: output}
}

// assistantMessage is the message of an assistant event: its text
// blocks, and the id, model and usage of its API message.
type assistantMessage struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	ID    string       `json:"id"`
	Model string       `json:"model"`
	Usage *claudeUsage `json:"usage"`
}

// add counts a streamed assistant message's usage, and tells whether it
// had one.
func (s *claudeStream) add(msg assistantMessage) bool {
	if msg.Usage == nil {
		return false
	}
	if s.started && msg.ID != s.lastID {
		if s.done == nil {
			s.done = map[string]Tokens{}
		}
		if len(s.done) < maxModels || s.done[s.model] != (Tokens{}) {
			s.done[s.model] = s.done[s.model].Add(s.last)
		}
	}
	t := msg.Usage
	s.started, s.lastID, s.model = true, clip(msg.ID, maxModel), clip(msg.Model, maxModel)
	s.last = claudeTokens(t.InputTokens, t.CacheCreationInputTokens, t.CacheReadInputTokens, t.OutputTokens)
	return true
}

// totals are the tokens streamed so far, in all and per model. The map
// is the stream's own, rewritten by the next call.
func (s *claudeStream) totals() (Tokens, map[string]Tokens) {
	if s.models == nil {
		s.models = make(map[string]Tokens, len(s.done)+1)
	}
	clear(s.models)
	var all Tokens
	for m, t := range s.done {
		s.models[m], all = t, all.Add(t)
	}
	s.models[s.model] = s.models[s.model].Add(s.last)
	return all.Add(s.last), s.models
}

// text joins the text blocks of an assistant message.
func (m assistantMessage) text() string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" && c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (f *claudeFormat) Finish() Usage {
	f.flush()
	final := f.assistant
	if f.result != nil {
		final = *f.result
	}
	return f.done(final, f.usage)
}
