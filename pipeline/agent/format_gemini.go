package agent

import (
	"encoding/json"
	"io"
)

// geminiFormat reads Gemini CLI's JSON output (gemini-cli
// packages/core/src/output/types.ts, docs/cli/headless.md):
//
//   - gemini -p … --output-format json prints one object, indented with
//     JSON.stringify(output, null, 2): {"session_id":…,"response":"<final
//     text>","stats":{"models":{"<model>":{"api":{…},"tokens":{"input":…,
//     "prompt":…,"candidates":…,"total":…,"cached":…,"thoughts":…,
//     "tool":…}}},"tools":{…},"files":{…}},"error":{"type":…,"message":…,
//     "code":…}}, error only when the run failed;
//   - --output-format stream-json prints JSONL events: init, message
//     (role, content, delta), tool_use, tool_result, error (warnings), and
//     result (status, error, stats with input_tokens, output_tokens, cached).
//
// For stream-json the final text is the assistant messages after the last
// tool call, deltas joined. Gemini CLI tells its usage only in the result
// (json and stream-json alike): its spend is known when it ends. Warnings and retries ("Attempt 1 failed: You
// have exhausted your capacity on this model…") go to stderr as plain lines.
type geminiFormat struct {
	structured
	response []byte // final text, at most MaxJSONBytes
	fresh    bool   // the next assistant message starts a new response
	usage    Usage
}

var (
	_ Format       = (*geminiFormat)(nil)
	_ costReporter = (*geminiFormat)(nil)
	_ apiHolder    = (*geminiFormat)(nil)
	_ judgeCLI     = (*geminiFormat)(nil)
)

// program implements judgeCLI.
func (*geminiFormat) program() string { return "gemini" }

// smallModel implements judgeCLI: Google's small model (the lite model of
// the CLI's own routing).
func (*geminiFormat) smallModel() string { return "gemini-3.5-flash-lite" }

// judgeArgs implements judgeCLI: the model replaced and the approval
// mode plan (read-only).
func (*geminiFormat) judgeArgs(argv []string, model string) []string {
	argv = withoutFlags(argv, []string{"-m", "--model", "--approval-mode"}, []string{"--yolo", "-y"})
	return append(argv, "--model", model, "--approval-mode", "plan")
}

// reportsCost implements costReporter: its tokens are priced.
func (*geminiFormat) reportsCost() {}

// modelAPI implements apiHolder: where the CLI reads its key and its
// API's base URL.
func (*geminiFormat) modelAPI() ModelAPI {
	return ModelAPI{Keys: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, BaseURL: "GOOGLE_GEMINI_BASE_URL", Upstream: "https://generativelanguage.googleapis.com"}
}

func newGeminiFormat(text, diag io.Writer) Format {
	f := &geminiFormat{}
	f.structured = newStructured(text, diag, f.handle)
	return f
}

// geminiDoc holds the members of Gemini's output object and of its
// stream-json events read here.
type geminiDoc struct {
	Type      string       `json:"type"` // stream-json only
	SessionID string       `json:"session_id"`
	Response  *string      `json:"response"`
	Stats     *geminiStats `json:"stats"`
	Error     *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Role    string `json:"role"`
	Content string `json:"content"`
	Delta   bool   `json:"delta"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// geminiStats covers both stats shapes: per model with nested tokens
// (json) and flat totals with flat per-model counts (stream-json result,
// as gemini-cli 0.61 writes it; see testdata/captured).
type geminiStats struct {
	Models map[string]struct {
		Tokens struct {
			Prompt     int64 `json:"prompt"`
			Candidates int64 `json:"candidates"`
			Cached     int64 `json:"cached"`
			Thoughts   int64 `json:"thoughts"`
		} `json:"tokens"`
		// The stream-json result's flat per-model counts.
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		Cached       int64 `json:"cached"`
	} `json:"models"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
}

// handle reads the output object or one event, and tells whether it is
// one of Gemini's.
func (f *geminiFormat) handle(doc []byte) bool {
	var d geminiDoc
	if doc[0] != '{' || json.Unmarshal(doc, &d) != nil {
		return false
	}
	if d.Type == "" && d.Response == nil && d.Stats == nil && d.Error == nil && d.SessionID == "" {
		return false
	}
	if d.SessionID != "" {
		f.usage.SessionID = d.SessionID
	}
	switch d.Type {
	case "": // the json output object
		if d.Response != nil {
			f.response = append(f.response[:0], clip(*d.Response, MaxJSONBytes)...)
		}
	case "message":
		if d.Role == "assistant" {
			f.assistant(d.Content, d.Delta)
		}
		return true
	case "tool_use", "tool_result":
		f.fresh = true
		return true
	case "error":
		f.message(d.Message)
		return true
	case "result":
		if d.Status == "error" && d.Error == nil {
			f.fail("error")
		}
	default:
		return true
	}
	if s := d.Stats; s != nil {
		f.usage.Tokens, f.usage.Models = s.tokens()
		if f.live != nil {
			f.live(f.usage)
		}
	}
	if d.Error != nil {
		f.fail(d.Error.Message)
	}
	return true
}

// assistant adds an assistant message of the stream to the response.
func (f *geminiFormat) assistant(content string, delta bool) {
	if f.fresh || !delta {
		f.response, f.fresh = f.response[:0], false
	}
	room := MaxJSONBytes - len(f.response)
	f.response = append(f.response, clip(content, room)...)
}

// tokens sums the token counts, in all and per model. Gemini's prompt
// count includes the cached tokens; thoughts are billed as output.
func (s *geminiStats) tokens() (Tokens, map[string]Tokens) {
	models := map[string]Tokens{}
	var sum Tokens
	for name, m := range s.Models {
		t := Tokens{Input: m.Tokens.Prompt, CachedInput: m.Tokens.Cached, Output: m.Tokens.Candidates + m.Tokens.Thoughts}
		if t == (Tokens{}) {
			t = Tokens{Input: m.InputTokens, CachedInput: m.Cached, Output: m.OutputTokens}
		}
		if len(models) < maxModels {
			models[clip(name, maxModel)] = models[clip(name, maxModel)].Add(t)
		}
		sum = sum.Add(t)
	}
	if s.InputTokens+s.OutputTokens > 0 {
		sum = Tokens{Input: s.InputTokens, CachedInput: s.Cached, Output: s.OutputTokens}
	}
	if len(models) == 0 {
		models = nil
	}
	return sum, models
}

// fail records the error the run ended with.
func (f *geminiFormat) fail(msg string) {
	f.usage.IsError = true
	f.usage.ErrorMessage = clip(msg, maxMessage)
	f.message(msg)
}

func (f *geminiFormat) Finish() Usage {
	f.flush()
	return f.done(string(f.response), f.usage)
}
