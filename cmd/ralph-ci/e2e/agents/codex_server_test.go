package agents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// responsesServer is a scripted OpenAI Responses API (POST /v1/responses,
// streamed as SSE) for the real Codex CLI, which reaches it through a
// custom model provider in $CODEX_HOME/config.toml (wire_api =
// "responses"). The scenario is the one of messagesServer:
//
//   - a conversation that starts while the file does not exist answers
//     with a function_call of Codex's shell tool (exec_command, or shell in
//     older versions) that writes the file; Codex runs it in its sandbox and
//     sends the function_call_output back; the next response is the
//     completion promise and "RALPH_STATUS: DONE";
//   - a conversation that starts when the file is there answers with the
//     promise and DONE at once.
type responsesServer struct {
	srv     *httptest.Server
	path    string // absolute path of the file to write
	relPath string // its path relative to the repository (the shell's cwd)
	content string
	promise string
	e2e.RequestLog

	mu         sync.Mutex
	userTexts  []string // the user texts of each conversation's first request
	toolOK     []string // outputs of the shell call that exited 0
	toolErrors []string // other outputs
	replies    int
}

func newResponsesServer(t *testing.T, path, relPath, content, promise string) *responsesServer {
	t.Helper()
	s := &responsesServer{path: path, relPath: relPath, content: content, promise: promise}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the provider's base_url: http://127.0.0.1:PORT/v1.
func (s *responsesServer) URL() string { return s.srv.URL + "/v1" }

func (s *responsesServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.Note(r, "unreadable body: "+err.Error(), true)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case r.URL.Path == "/v1/responses" && r.Method == http.MethodPost:
		s.responses(w, r, body)
	case r.URL.Path == "/v1/responses" && r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
		// The built-in provider tries a WebSocket first; refused, it
		// falls back to plain requests.
		s.Note(r, "404 (no WebSocket: the CLI falls back to HTTP)", false)
		http.NotFound(w, r)
	default:
		s.UnknownRoute(w, r)
	}
}

// responsesRequest holds what the script reads of a Responses API request.
type responsesRequest struct {
	Model string `json:"model"`
	Input []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		CallID  string `json:"call_id"`
		Output  any    `json:"output"` // function_call_output: a string (or content items)
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

const codexCallID = "call_ralph_write_hello"

func (s *responsesServer) responses(w http.ResponseWriter, r *http.Request, body []byte) {
	var req responsesRequest
	if !s.Decode(w, r, body, &req) {
		return
	}
	tools := map[string]bool{}
	for _, t := range req.Tools {
		tools[t.Name] = true
	}
	var output *string
	var users []string
	for _, it := range req.Input {
		switch {
		case it.Type == "function_call_output" && it.CallID == codexCallID:
			b, _ := json.Marshal(it.Output)
			o := string(b)
			if str, ok := it.Output.(string); ok {
				o = str
			}
			output = &o
		case it.Type == "message" && it.Role == "user":
			for _, c := range it.Content {
				users = append(users, c.Text)
			}
		}
	}
	if strings.Contains(strings.Join(users, "\n"), e2e.SemanticJudgeIntro) { // ralph-ci's semantic judge
		s.Note(r, "message VERIFIED (semantic judge, "+req.Model+")", false)
		s.reply(w, req, body, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "VERIFIED"}}})
		return
	}
	_, statErr := os.Stat(s.path)
	done := fmt.Sprintf("I wrote %s.\n\n<promise>%s</promise>\n\nRALPH_STATUS: DONE", s.relPath, s.promise)

	s.mu.Lock()
	if output == nil {
		s.userTexts = append(s.userTexts, strings.Join(users, "\n"))
	} else if strings.Contains(*output, "exited with code 0") {
		s.toolOK = append(s.toolOK, *output)
	} else {
		s.toolErrors = append(s.toolErrors, *output)
	}
	s.mu.Unlock()

	shell := fmt.Sprintf("printf '%%s' '%s' > %s", s.content, s.relPath)
	switch {
	case output != nil:
		s.Note(r, "message promise+DONE (after the function_call_output)", false)
		s.reply(w, req, body, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": done}}})
	case !os.IsNotExist(statErr):
		s.Note(r, "message promise+DONE (the file is already there)", false)
		s.reply(w, req, body, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": done}}})
	case tools["exec_command"]:
		s.Note(r, "function_call exec_command (writes "+s.relPath+")", false)
		args, _ := json.Marshal(map[string]any{"cmd": shell})
		s.reply(w, req, body, map[string]any{"type": "function_call", "call_id": codexCallID, "name": "exec_command", "arguments": string(args)})
	case tools["shell"]:
		s.Note(r, "function_call shell (writes "+s.relPath+")", false)
		args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", shell}})
		s.reply(w, req, body, map[string]any{"type": "function_call", "call_id": codexCallID, "name": "shell", "arguments": string(args)})
	default:
		names := make([]string, 0, len(req.Tools))
		for _, t := range req.Tools {
			names = append(names, t.Name)
		}
		s.Note(r, fmt.Sprintf("no shell tool among %q: teach the script this Codex version's tool", names), true)
		s.reply(w, req, body, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "no tool\nRALPH_STATUS: STUCK"}}})
	}
}

// reply streams one output item as a Responses API SSE stream, with usage.
func (s *responsesServer) reply(w http.ResponseWriter, req responsesRequest, body []byte, item map[string]any) {
	s.mu.Lock()
	s.replies++
	n := s.replies
	s.mu.Unlock()
	respID, itemID := fmt.Sprintf("resp_ralph%04d", n), fmt.Sprintf("item_ralph%04d", n)
	item["id"] = itemID
	in := e2e.EstimateTokens(len(body))
	itemJSON, _ := json.Marshal(item)
	out := e2e.EstimateTokens(len(itemJSON))

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	seq := 0
	event := func(v map[string]any) {
		v["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	resp := map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": req.Model, "output": []any{}}
	event(map[string]any{"type": "response.created", "response": resp})
	event(map[string]any{"type": "response.in_progress", "response": resp})
	added := map[string]any{}
	for k, v := range item {
		added[k] = v
	}
	if item["type"] == "message" {
		added["content"] = []any{}
	}
	event(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": added})
	if item["type"] == "message" {
		text := item["content"].([]any)[0].(map[string]any)["text"].(string)
		half := len(text) / 2
		for _, piece := range []string{text[:half], text[half:]} {
			event(map[string]any{"type": "response.output_text.delta", "item_id": itemID, "output_index": 0, "content_index": 0, "delta": piece})
		}
	}
	event(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	resp["status"], resp["output"] = "completed", []any{item}
	resp["usage"] = map[string]any{
		"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": in + out,
	}
	event(map[string]any{"type": "response.completed", "response": resp})
}
