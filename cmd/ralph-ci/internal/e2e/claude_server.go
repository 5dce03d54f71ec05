package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// RequestLog logs the requests a scripted server gets (for the real-CLI
// tests of Claude Code, Codex and Gemini CLI).
type RequestLog struct {
	logMu      sync.Mutex
	requests   []string // "METHOD /path?query -> what was answered"
	unexpected []string
}

func (l *RequestLog) Note(r *http.Request, what string, unexpected bool) {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	line := fmt.Sprintf("%s %s -> %s", r.Method, r.URL.RequestURI(), what)
	l.requests = append(l.requests, line)
	if unexpected {
		l.unexpected = append(l.unexpected, line)
	}
}

// Requests returns the log of every request, in order.
func (l *RequestLog) Requests() []string {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	return append([]string(nil), l.requests...)
}

// Unexpected returns the requests answered 404 because the script does not
// know them.
func (l *RequestLog) Unexpected() []string {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	return append([]string(nil), l.unexpected...)
}

// Decode reads the JSON request body into v. A body that does not parse
// is answered 400 and noted as unexpected, which fails the test.
func (l *RequestLog) Decode(w http.ResponseWriter, r *http.Request, body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		l.Note(r, "bad JSON: "+err.Error(), true)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// UnknownRoute answers a route the script does not know: 404, and noted as
// unexpected, which fails the test.
func (l *RequestLog) UnknownRoute(w http.ResponseWriter, r *http.Request) {
	l.Note(r, "404 (unexpected route)", true)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":{"type":"not_found_error","code":404,"status":"NOT_FOUND","message":"scripted test server: no route %s %s"}}`, r.Method, r.URL.Path)
}

// EstimateTokens is a rough count (4 bytes a token), so the usage, and the
// cost the CLI computes from it, look like a real call's.
func EstimateTokens(n int) int { return n/4 + 1 }

func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
