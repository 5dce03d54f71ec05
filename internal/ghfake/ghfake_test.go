package ghfake

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what the fake reports as errors
// instead of failing the test, so that the catch-all can be checked.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func do(t *testing.T, s *Server, method, path string, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Every route the fake knows answers without an error; anything else
// (another method, repository, pull request or path) fails the test with
// the request named, and gets 404.
func TestRoutes(t *testing.T) {
	known := []struct {
		method, path, body string
		code               int
	}{
		{"GET", "/user", "", 403},
		{"GET", "/repos/o/r/pulls/7", "", 200},
		{"GET", "/repos/o/r/pulls/7/commits", "", 200},
		{"GET", "/repos/o/r/contents/dir/ralph.yaml?ref=" + BaseSHA, "", 200},
		{"GET", "/repos/o/r/contents/missing.yaml", "", 404},
		{"GET", "/repos/o/r/issues/7/comments", "", 200},
		{"POST", "/repos/o/r/issues/7/comments", `{"body":"hi"}`, 201},
		{"POST", "/repos/o/r/issues/7/comments", `{"body":""}`, 422},
		{"PATCH", "/repos/o/r/issues/comments/1001", `{"body":"edited"}`, 200},
		{"PATCH", "/repos/o/r/issues/comments/999", `{"body":"edited"}`, 404},
		{"GET", "/repos/o/r/issues/comments/1001/reactions", "", 200},
		{"GET", "/repos/o/r/collaborators/alice/permission", "", 200},
		{"GET", "/repos/o/r/collaborators/bob/permission", "", 404},
		{"POST", "/repos/o/r/statuses/abc123", `{"state":"pending","context":"ralph-ci"}`, 201},
		{"GET", "/repos/o/r/pulls?state=open&head=o:ralph-ci/main&base=main", "", 200},
		{"POST", "/repos/o/r/pulls", `{"title":"t","body":"b","head":"ralph-ci/main","base":"main"}`, 201},
		{"POST", "/repos/o/r/pulls", `{"title":"t","body":"b","head":"ralph-ci/main","base":"main"}`, 422},
		{"PATCH", "/repos/o/r/pulls/107", `{"body":"again"}`, 200},
		{"DELETE", "/repos/o/r/issues/comments/1001", "", 204},
		{"DELETE", "/repos/o/r/issues/comments/1001", "", 404},
	}
	rec := &recorder{TB: t}
	s := New(rec, "o", "r", 7, "abc123", "author")
	s.Perms["alice"] = "write"
	s.SetFile(BaseSHA, "dir/ralph.yaml", "agents: {}\n")
	for _, k := range known {
		if got := do(t, s, k.method, k.path, k.body); got != k.code {
			t.Errorf("%s %s: got %d, want %d", k.method, k.path, got, k.code)
		}
	}
	if len(rec.errors) > 0 {
		t.Fatalf("known routes reported as unexpected: %q", rec.errors)
	}

	unknown := []struct{ method, path string }{
		{"GET", "/repos/other/r/pulls"},
		{"PATCH", "/repos/o/r/pulls/999"},
		{"GET", "/repos/o/r/pulls/8"},
		{"GET", "/repos/o/r/pulls/8/commits"},
		{"GET", "/repos/other/r/pulls/7"},
		{"GET", "/repos/o/other/issues/7/comments"},
		{"GET", "/repos/o/r/issues/comments/x/reactions"},
		{"POST", "/repos/o/r/statuses/not-a-sha"},
		{"PUT", "/repos/o/r/contents/ralph.yaml"},
		{"GET", "/repos/o/r/contents/"},
	}
	for _, u := range unknown {
		rec.errors = nil
		if got := do(t, s, u.method, u.path, "{}"); got != 404 {
			t.Errorf("%s %s: got %d, want 404", u.method, u.path, got)
		}
		want := "fake GitHub: unexpected request " + u.method + " " + u.path
		if len(rec.errors) == 0 || rec.errors[0] != want {
			t.Errorf("%s %s: errors %q, want first %q", u.method, u.path, rec.errors, want)
		}
	}
}

// Every exchange is checked against GitHub's OpenAPI description: a
// request with a query parameter, a body or a method the description
// does not allow fails the test, and so does an answer it does not allow.
func TestConformsToOpenAPI(t *testing.T) {
	rec := &recorder{TB: t}
	s := New(rec, "o", "r", 7, "abc123", "author")
	bad := []struct{ method, path, body, why string }{
		{"GET", "/repos/o/r/pulls?state=open&sort=sideways", "", `parameter "sort" in query`},
		{"GET", "/repos/o/r/pulls?state=open&colour=red", "", "query parameters colour are not declared"},
		{"POST", "/repos/o/r/statuses/abc123", `{"state":"green","context":"ralph-ci"}`, `at /state: value is not one of the allowed values`},
		{"POST", "/repos/o/r/issues/7/comments", `{"text":"hi"}`, `property "body" is missing`},
		{"DELETE", "/repos/o/r/pulls/7", "", "no operation of the description has this path and method"},
	}
	for _, b := range bad {
		rec.errors = nil
		do(t, s, b.method, b.path, b.body)
		if !strings.Contains(strings.Join(rec.errors, "\n"), b.why) {
			t.Errorf("%s %s %s: errors %q, want one saying %q", b.method, b.path, b.body, rec.errors, b.why)
		}
	}

	// An answer missing what the description requires.
	req := httptest.NewRequest("GET", "/repos/o/r/pulls/7", nil)
	answer := httptest.NewRecorder()
	answer.Header().Set("Content-Type", "application/json")
	answer.WriteHeader(200)
	answer.WriteString(`{"number":7,"state":"open"}`)
	if err := conform(req, nil, answer, false); err == nil || !strings.Contains(err.Error(), `property "head" is missing`) {
		t.Errorf("a pull request without head: %v, want it refused", err)
	}
	// A status the operation does not document.
	answer = httptest.NewRecorder()
	answer.WriteHeader(418)
	answer.WriteString(`{"message":"teapot"}`)
	if err := conform(req, nil, answer, false); err == nil || !strings.Contains(err.Error(), "status is not supported") {
		t.Errorf("a 418: %v, want it refused", err)
	}
}

// A fault answers its code for Count requests, then the route answers
// again; with Done the write happened before the fault.
func TestFault(t *testing.T) {
	s := New(t, "o", "r", 7, "abc123", "author")
	s.Inject(Fault{Method: "POST", Path: `/issues/7/comments$`, Code: 502, Count: 1, Done: true})
	if got := do(t, s, "POST", "/repos/o/r/issues/7/comments", `{"body":"one"}`); got != 502 {
		t.Fatalf("first POST: got %d, want 502", got)
	}
	if got := do(t, s, "POST", "/repos/o/r/issues/7/comments", `{"body":"two"}`); got != 201 {
		t.Fatalf("second POST: got %d, want 201", got)
	}
	if comments, _ := s.Snapshot(); len(comments) != 2 {
		t.Fatalf("comments: got %d, want 2 (the faulted write was done)", len(comments))
	}
	if n := s.Seen("POST", `/issues/7/comments$`); n != 2 {
		t.Fatalf("Seen: got %d, want 2", n)
	}
}

// A protected base: the merge goes through only when every required
// context is success on the head, once.
func TestProtectedMerge(t *testing.T) {
	s := New(t, "o", "r", 7, "abc123", "author")
	s.Protect("ralph-ci")
	merge := func(body string) int { return do(t, s, "PUT", "/repos/o/r/pulls/7/merge", body) }
	if got := merge(`{}`); got != 405 {
		t.Fatalf("no status: %d, want 405", got)
	}
	s.SetStatus("abc123", "ralph-ci", "pending", "awaiting approval")
	s.SetStatus("abc123", "ralph-ci/specs/a.spec.md", "success", "approved")
	if got := merge(`{}`); got != 405 {
		t.Fatalf("pending: %d, want 405", got)
	}
	s.SetStatus("abc123", "ralph-ci", "success", "approved")
	if got := merge(`{"sha":"def456"}`); got != 409 {
		t.Fatalf("another sha: %d, want 409", got)
	}
	s.SetStatus("old", "ralph-ci", "success", "approved")
	s.SetHead("def456")
	if got := merge(`{}`); got != 405 {
		t.Fatalf("success on an older head only: %d, want 405", got)
	}
	s.SetStatus("def456", "ralph-ci", "success", "approved")
	if got := merge(`{"sha":"def456","merge_method":"squash"}`); got != 200 {
		t.Fatalf("success on the head: %d, want 200", got)
	}
	if ok, at := s.Merged(); !ok || at != "def456" {
		t.Fatalf("Merged: %v %s", ok, at)
	}
	if got := merge(`{}`); got != 405 {
		t.Fatalf("merged twice: %d, want 405", got)
	}
}
