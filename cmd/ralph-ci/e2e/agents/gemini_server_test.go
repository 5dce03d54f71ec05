package agents

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

// generativeServer is a scripted Gemini API (generativelanguage v1beta) for
// the real Gemini CLI, which reaches it through GOOGLE_GEMINI_BASE_URL. The
// scenario is the one of messagesServer:
//
//   - a conversation that starts while the file does not exist answers
//     with a functionCall of the CLI's write_file tool (the CLI writes the
//     file itself); once the functionResponse is in the request, the answer
//     is the completion promise and "RALPH_STATUS: DONE";
//   - a conversation that starts when the file is there answers with the
//     promise and DONE at once.
//
// Besides the agent's streamGenerateContent calls, the CLI asks a small
// model for a complexity score (its model router) with generateContent and
// a JSON response schema; that is answered with a score.
type generativeServer struct {
	srv     *httptest.Server
	path    string // absolute path of the file to write
	content string
	promise string
	e2e.RequestLog

	mu          sync.Mutex
	userTexts   []string // the user texts of each conversation's first request
	toolResults []string // functionResponse payloads of write_file
	replies     int
}

func newGenerativeServer(t *testing.T, path, content, promise string) *generativeServer {
	t.Helper()
	s := &generativeServer{path: path, content: content, promise: promise}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the value of GOOGLE_GEMINI_BASE_URL.
func (s *generativeServer) URL() string { return s.srv.URL }

// generateRequest holds what the script reads of a generateContent request.
type generateRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text             string `json:"text,omitempty"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse,omitempty"`
}

func (s *generativeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.Note(r, "unreadable body: "+err.Error(), true)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	model, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		s.UnknownRoute(w, r)
		return
	}
	var req generateRequest
	if !s.Decode(w, r, body, &req) {
		return
	}
	switch method {
	case "countTokens":
		s.Note(r, "token count", false)
		e2e.WriteJSON(w, map[string]any{"totalTokens": e2e.EstimateTokens(len(body))})
	case "generateContent":
		// Not the agent's turn: the model router's complexity score (JSON
		// asked for) or another side question.
		if req.GenerationConfig.ResponseMimeType == "application/json" {
			s.Note(r, "JSON complexity score ("+model+")", false)
			s.reply(w, r, model, body, false, []any{map[string]any{"text": `{"complexity_reasoning": "Create one small file.", "complexity_score": 20}`}})
			return
		}
		s.Note(r, "aux text ("+model+")", false)
		s.reply(w, r, model, body, false, []any{map[string]any{"text": "OK"}})
	case "streamGenerateContent":
		s.agentTurn(w, r, model, body, req)
	default:
		s.UnknownRoute(w, r)
	}
}

func (s *generativeServer) agentTurn(w http.ResponseWriter, r *http.Request, model string, body []byte, req generateRequest) {
	hasWrite := false
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			hasWrite = hasWrite || f.Name == "write_file"
		}
	}
	var result json.RawMessage
	var users []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.Name == "write_file" {
				result = p.FunctionResponse.Response
			}
			if c.Role == "user" && p.Text != "" {
				users = append(users, p.Text)
			}
		}
	}
	if strings.Contains(strings.Join(users, "\n"), e2e.SemanticJudgeIntro) { // ralph-ci's semantic judge
		s.Note(r, "text VERIFIED (semantic judge, "+model+")", false)
		s.reply(w, r, model, body, true, []any{map[string]any{"text": "VERIFIED"}})
		return
	}
	_, statErr := os.Stat(s.path)
	done := fmt.Sprintf("I wrote %s.\n\n<promise>%s</promise>\n\nRALPH_STATUS: DONE", filepath.Base(s.path), s.promise)

	s.mu.Lock()
	if result == nil {
		s.userTexts = append(s.userTexts, strings.Join(users, "\n"))
	} else {
		s.toolResults = append(s.toolResults, string(result))
	}
	s.mu.Unlock()

	switch {
	case !hasWrite:
		s.Note(r, "aux stream text ("+model+")", false)
		s.reply(w, r, model, body, true, []any{map[string]any{"text": "OK"}})
	case result != nil:
		s.Note(r, "text promise+DONE (after the functionResponse)", false)
		s.reply(w, r, model, body, true, []any{map[string]any{"text": done}})
	case os.IsNotExist(statErr):
		s.Note(r, "functionCall write_file "+filepath.Base(s.path), false)
		s.reply(w, r, model, body, true, []any{map[string]any{"functionCall": map[string]any{
			"name": "write_file", "args": map[string]any{"file_path": s.path, "content": s.content}}}})
	default:
		s.Note(r, "text promise+DONE (the file is already there)", false)
		s.reply(w, r, model, body, true, []any{map[string]any{"text": done}})
	}
}

// reply answers with parts as one candidate, as SSE (alt=sse) for
// streamGenerateContent or as one JSON object, with usage metadata.
func (s *generativeServer) reply(w http.ResponseWriter, r *http.Request, model string, body []byte, stream bool, parts []any) {
	s.mu.Lock()
	s.replies++
	n := s.replies
	s.mu.Unlock()
	partsJSON, _ := json.Marshal(parts)
	in, out := e2e.EstimateTokens(len(body)), e2e.EstimateTokens(len(partsJSON))
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out},
		"modelVersion":  model,
		"responseId":    fmt.Sprintf("ralph-%04d", n),
	}
	if !stream {
		e2e.WriteJSON(w, resp)
		return
	}
	if r.URL.Query().Get("alt") != "sse" {
		// The CLI always asks for SSE; a JSON array stream is not scripted.
		s.Note(r, "streamGenerateContent without alt=sse", true)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	b, _ := json.Marshal(resp)
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}
