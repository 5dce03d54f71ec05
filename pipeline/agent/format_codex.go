package agent

import (
	"encoding/json"
	"io"
)

// codexFormat reads the JSONL events of codex exec --json (codex-rs
// exec_events.rs, docs/exec.md):
//
//	{"type":"thread.started","thread_id":"0199a213-…"}
//	{"type":"turn.started"}
//	{"type":"item.started","item":{"id":"item_1","type":"command_execution",…}}
//	{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"…"}}
//	{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}
//	{"type":"turn.failed","error":{"message":"…"}}
//	{"type":"error","message":"…"}
//
// The final text is the text of the last completed agent_message item.
// Codex reports tokens but no cost, nor the model; its input_tokens
// include the cached ones. Its usage comes once per turn (turn.completed):
// that is when the spend so far is known while it runs. Item errors ({"type":"error"} items) are not fatal: they are only
// searched for rate-limit messages. Codex prints "Reading prompt from
// stdin..." and warnings to stderr; those lines are not JSON.
type codexFormat struct {
	structured
	last  string
	usage Usage
}

var (
	_ Format       = (*codexFormat)(nil)
	_ costReporter = (*codexFormat)(nil)
	_ apiHolder    = (*codexFormat)(nil)
	_ judgeCLI     = (*codexFormat)(nil)
	_ sandboxed    = (*codexFormat)(nil)
)

// boxedArgs implements sandboxed: --sandbox danger-full-access (ralph-ci's
// box stands in for Codex's), any other sandbox flag and --full-auto
// (which asks for workspace-write) removed, before the "-" that reads the
// prompt from stdin.
func (*codexFormat) boxedArgs(argv []string) []string {
	argv = withoutFlags(argv, []string{"-s", "--sandbox"}, []string{"--full-auto"})
	boxed := []string{"--sandbox", "danger-full-access"}
	if argv[len(argv)-1] == "-" {
		return append(append(argv[:len(argv)-1:len(argv)-1], boxed...), "-")
	}
	return append(argv, boxed...)
}

// program implements judgeCLI.
func (*codexFormat) program() string { return "codex" }

// smallModel implements judgeCLI: OpenAI's small model.
func (*codexFormat) smallModel() string { return "gpt-5-mini" }

// judgeArgs implements judgeCLI: the model replaced and the sandbox
// read-only, before the "-" that reads the prompt from stdin.
func (*codexFormat) judgeArgs(argv []string, model string) []string {
	argv = withoutFlags(argv, []string{"-m", "--model", "-s", "--sandbox"}, []string{"--dangerously-bypass-approvals-and-sandbox", "--full-auto", "--yolo"})
	judge := []string{"--model", model, "--sandbox", "read-only"}
	if argv[len(argv)-1] == "-" {
		return append(append(argv[:len(argv)-1:len(argv)-1], judge...), "-")
	}
	return append(argv, judge...)
}

// reportsCost implements costReporter: its tokens are priced.
func (*codexFormat) reportsCost() {}

// modelAPI implements apiHolder: where the CLI reads its key and its
// API's base URL.
func (*codexFormat) modelAPI() ModelAPI {
	return ModelAPI{Keys: []string{"OPENAI_API_KEY", "CODEX_API_KEY"}, BaseURL: "OPENAI_BASE_URL", Upstream: "https://api.openai.com/v1", Setting: "openai_base_url"}
}

func newCodexFormat(text, diag io.Writer) Format {
	f := &codexFormat{}
	f.structured = newStructured(text, diag, f.handle)
	return f
}

// codexEvent holds the members of codex exec events read here.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Item     *struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
	} `json:"item"`
	Usage *struct {
		InputTokens       int64 `json:"input_tokens"`
		CachedInputTokens int64 `json:"cached_input_tokens"`
		CacheWriteTokens  int64 `json:"cache_write_input_tokens"`
		OutputTokens      int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// handle reads one event, and tells whether it is one of Codex's.
func (f *codexFormat) handle(doc []byte) bool {
	typ, ok := docType(doc)
	switch {
	case !ok || typ == "":
		return false
	case typ != "thread.started" && typ != "item.completed" && typ != "turn.completed" && typ != "turn.failed" && typ != "error":
		return true
	}
	var ev codexEvent
	if json.Unmarshal(doc, &ev) != nil {
		return false
	}
	u := &f.usage
	switch ev.Type {
	case "thread.started":
		u.SessionID = ev.ThreadID
	case "item.completed":
		if ev.Item == nil {
			return true
		}
		switch ev.Item.Type {
		case "agent_message":
			f.last = ev.Item.Text
		case "error":
			f.message(ev.Item.Message)
		}
	case "turn.completed":
		u.Turns++
		if t := ev.Usage; t != nil {
			u.Tokens = u.Tokens.Add(Tokens{Input: t.InputTokens, CachedInput: t.CachedInputTokens, CacheWrite: t.CacheWriteTokens, Output: t.OutputTokens})
			if f.live != nil {
				f.live(*u)
			}
		}
	case "turn.failed":
		u.Turns++
		f.fail(ev, doc)
	case "error":
		f.fail(ev, doc)
	}
	return true
}

// fail records a fatal error of the run. Codex's own error events have a
// top-level message, turn.failed an error.message; an error event without
// either is searched whole (as the ChatGPT backend's usage_limit_reached
// error, whose resets_at tells when to try again).
func (f *codexFormat) fail(ev codexEvent, doc []byte) {
	msg := ev.Message
	if msg == "" && ev.Error != nil {
		msg = ev.Error.Message
	}
	f.usage.IsError = true
	f.usage.ErrorMessage = clip(msg, maxMessage)
	if ev.Type == "error" && ev.Message == "" {
		msg = string(doc)
	}
	f.message(msg)
}

func (f *codexFormat) Finish() Usage {
	f.flush()
	return f.done(f.last, f.usage)
}
