package claude

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// messagesServer is a scripted Anthropic Messages API for the real Claude
// Code CLI (ANTHROPIC_BASE_URL points at it). It plays one scenario:
//
//   - a conversation that starts while the file does not exist yet: turn 1
//     answers with a tool_use of Claude Code's Write tool (the CLI writes the
//     file itself), turn 2, once the tool_result is in the request, answers
//     with the completion promise and a last line "RALPH_STATUS: DONE";
//   - a conversation that starts when the file is there (the later rotations
//     of the loop) answers with the promise and DONE at once.
//
// Every request is logged (Requests). Routes the CLI is known to call and
// that do not matter are answered; anything else is answered 404 and kept
// in Unexpected, which the test turns into a failure.
type messagesServer struct {
	srv     *httptest.Server
	path    string // absolute path of the file to write
	content string
	promise string
	// bash, when set, is the command of a Bash tool_use that turn 1
	// answers with instead of the Write (it must create the file).
	bash string
	// empty, when set, makes every turn of the agent's conversation
	// answer with no content at all (an empty result).
	empty bool
	// usageIn, when set, is the input tokens every reply reports, and
	// endless makes every turn of the agent's conversation a new Write,
	// so that the conversation spends usageIn per turn without end.
	usageIn int
	endless bool
	// admit, when set, is said in the agent's final message, before the
	// criteria it reports done.
	admit string
	// judge, when set, answers the conversations of ralph-ci's semantic
	// judge (their prompt starts with SemanticJudgeIntro) with its text for
	// the prompt (unset: VERIFIED); judgeModels logs the model each asked
	// for.
	judge       func(prompt string) string
	judgeModels []string

	e2e.RequestLog

	mu         sync.Mutex
	prompts    []string // the first user text of each conversation
	toolOK     []string // tool_result texts of successful writes
	toolErrors []string // tool_result texts flagged is_error
	turns      int      // requests of the agent's conversations
	apiKeys    []string // the x-api-key of every request
	replies    int      // messages answered
}

func newMessagesServer(t testing.TB, path, content, promise string) *messagesServer {
	t.Helper()
	s := &messagesServer{path: path, content: content, promise: promise}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL for ANTHROPIC_BASE_URL (http://127.0.0.1:PORT).
func (s *messagesServer) URL() string { return s.srv.URL }

func (s *messagesServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.Note(r, "unreadable body: "+err.Error(), true)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.apiKeys = append(s.apiKeys, r.Header.Get("x-api-key"))
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet):
		// The CLI probes the base URL (HEAD /) before its first call.
		s.Note(r, "200 (connectivity probe)", false)
		w.WriteHeader(http.StatusOK)
	case r.URL.Path == "/v1/messages" && r.Method == http.MethodPost:
		s.messages(w, r, body)
	case r.URL.Path == "/v1/messages/count_tokens" && r.Method == http.MethodPost:
		s.Note(r, "token count", false)
		e2e.WriteJSON(w, map[string]any{"input_tokens": e2e.EstimateTokens(len(body))})
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		s.Note(r, "model list", false)
		e2e.WriteJSON(w, map[string]any{"data": []any{}, "has_more": false, "first_id": nil, "last_id": nil})
	default:
		s.UnknownRoute(w, r)
	}
}

// messagesRequest holds what the script reads of a Messages API request.
type messagesRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or a list of blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or blocks
}

func blocks(raw json.RawMessage) []contentBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []contentBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func blockText(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocks(raw) {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

const toolUseID = "toolu_01RalphWriteHello"

func (s *messagesServer) messages(w http.ResponseWriter, r *http.Request, body []byte) {
	var req messagesRequest
	if !s.Decode(w, r, body, &req) {
		return
	}
	if p := userText(req); strings.Contains(p, e2e.SemanticJudgeIntro) {
		answer := "VERIFIED"
		if s.judge != nil {
			answer = s.judge(p)
		}
		s.mu.Lock()
		s.judgeModels = append(s.judgeModels, req.Model)
		s.mu.Unlock()
		s.Note(r, "semantic judge ("+req.Model+"): "+answer, false)
		s.reply(w, req, body, []any{textBlock(answer)}, "end_turn")
		return
	}
	hasWrite := false
	for _, t := range req.Tools {
		hasWrite = hasWrite || t.Name == "Write"
	}
	if !hasWrite {
		// Not the agent's conversation (a title or summary on a small
		// model, say): a short answer is enough.
		s.Note(r, "aux text ("+req.Model+")", false)
		s.reply(w, req, body, []any{textBlock("OK")}, "end_turn")
		return
	}

	// The tool_result of our Write, if this is turn 2.
	var result *contentBlock
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range blocks(m.Content) {
			if b.Type == "tool_result" && b.ToolUseID == toolUseID {
				b := b
				result = &b
			}
		}
	}
	_, statErr := os.Stat(s.path)
	done := fmt.Sprintf("I wrote %s.%s\n\n%s<promise>%s</promise>\n\nRALPH_STATUS: DONE", filepath.Base(s.path), s.admit, criteriaDone(userText(req)), s.promise)

	s.mu.Lock()
	s.turns++
	if result == nil && len(req.Messages) > 0 {
		s.prompts = append(s.prompts, userText(req))
	}
	if result != nil {
		text := blockText(result.Content)
		if result.IsError {
			s.toolErrors = append(s.toolErrors, text)
		} else {
			s.toolOK = append(s.toolOK, text)
		}
	}
	s.mu.Unlock()

	switch {
	case s.endless:
		s.Note(r, "tool_use Write (endless)", false)
		s.reply(w, req, body, []any{
			textBlock("Writing it once more."),
			map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_endless%04d", s.turns), "name": "Write", "input": map[string]any{"file_path": s.path, "content": s.content}},
		}, "tool_use")
	case s.empty:
		s.Note(r, "no content (empty)", false)
		s.reply(w, req, body, []any{}, "end_turn")
	case result != nil && result.IsError:
		s.Note(r, "text STUCK (the Write failed)", false)
		s.reply(w, req, body, []any{textBlock("The write failed: " + blockText(result.Content) + "\n\nRALPH_STATUS: STUCK")}, "end_turn")
	case result != nil:
		s.Note(r, "text promise+DONE (turn 2, after the tool_result)", false)
		s.reply(w, req, body, []any{textBlock(done)}, "end_turn")
	case os.IsNotExist(statErr):
		tool, input := "Write", map[string]any{"file_path": s.path, "content": s.content}
		if s.bash != "" {
			tool, input = "Bash", map[string]any{"command": s.bash, "description": "Create the file"}
		}
		s.Note(r, "tool_use "+tool+" "+filepath.Base(s.path)+" (turn 1)", false)
		s.reply(w, req, body, []any{
			textBlock("I'll create the file."),
			map[string]any{"type": "tool_use", "id": toolUseID, "name": tool, "input": input},
		}, "tool_use")
	default:
		s.Note(r, "text promise+DONE (the file is already there)", false)
		s.reply(w, req, body, []any{textBlock(done)}, "end_turn")
	}
}

// userText is the text of the first user message (Claude Code puts the
// prompt there, after a system-reminder block).
func userText(req messagesRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return blockText(m.Content)
		}
	}
	return ""
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// reply answers with content as a Messages API response: an SSE stream
// when the request asked for one (it always does for Claude Code), else
// one JSON message.
func (s *messagesServer) reply(w http.ResponseWriter, req messagesRequest, body []byte, content []any, stop string) {
	model := req.Model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	in := e2e.EstimateTokens(len(body))
	if s.usageIn > 0 {
		in = s.usageIn
	}
	outBytes, _ := json.Marshal(content)
	out := e2e.EstimateTokens(len(outBytes))
	s.mu.Lock()
	s.replies++
	id := fmt.Sprintf("msg_ralph%04d", s.replies)
	s.mu.Unlock()
	if !req.Stream {
		e2e.WriteJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(name string, v map[string]any) {
		v["type"] = name
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	event("ping", map[string]any{})
	for i, c := range content {
		b := c.(map[string]any)
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			// Streamed in two pieces, as the API does.
			text := b["text"].(string)
			half := len(text) / 2
			for _, piece := range []string{text[:half], text[half:]} {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case "tool_use":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			input, _ := json.Marshal(b["input"])
			half := len(input) / 2
			for _, piece := range []string{string(input[:half]), string(input[half:])} {
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": out},
	})
	event("message_stop", map[string]any{})
}

// criteriaDone is the report of a scripted agent that met every
// acceptance criterion its prompt lists: each as "- [x] CRITERION".
func criteriaDone(prompt string) string {
	var b strings.Builder
	_, list, _ := strings.Cut(prompt, "\n## Acceptance Criteria\n")
	for _, line := range strings.Split(list, "\n") {
		c, ok := strings.CutPrefix(line, "- [ ] ")
		if !ok {
			break
		}
		b.WriteString("- [x] " + c + "\n")
	}
	return b.String()
}
