package github

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// The API URL: github.com as it is, GitHub Enterprise Server under its
// /api/v3, GHE.com (api.NAME.ghe.com) as it is.
func TestNewAPIURL(t *testing.T) {
	for _, tc := range []struct{ api, want string }{
		{"", "https://api.github.com/"},
		{"https://api.github.com", "https://api.github.com/"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/"},
		{"https://api.acme.ghe.com", "https://api.acme.ghe.com/"},
	} {
		c, err := New(Config{APIURL: tc.api})
		if err != nil {
			t.Fatalf("%q: %v", tc.api, err)
		}
		if got := c.BaseURL.String(); got != tc.want {
			t.Errorf("%q: base URL %s, want %s", tc.api, got, tc.want)
		}
	}
	if _, err := New(Config{APIURL: "://nonsense"}); err == nil || !strings.Contains(err.Error(), "GITHUB_API_URL") {
		t.Errorf("a bad API URL: %v", err)
	}
}

// Every call is logged at debug level, with its method, path and status,
// and never with the token.
func TestCallsAreLoggedWithoutTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-token-value" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"number": 7}`))
	}))
	defer srv.Close()
	var log bytes.Buffer
	c, err := New(Config{APIURL: srv.URL, Token: "s3cret-token-value", Log: zerolog.New(&log).Level(zerolog.DebugLevel), Retry: Retry{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := RepoOf(c, "o/r")
	if err != nil {
		t.Fatal(err)
	}
	pr, _, err := r.PullRequests.Get(context.Background(), "o", "r", 7)
	if err != nil || pr.GetNumber() != 7 {
		t.Fatalf("%v, %v", pr, err)
	}
	if s := log.String(); !strings.Contains(s, `"path":"/api/v3/repos/o/r/pulls/7"`) || !strings.Contains(s, `"status":200`) || strings.Contains(s, "s3cret") {
		t.Errorf("log: %s", s)
	}
	if _, err := RepoOf(c, "norepo"); err == nil {
		t.Error("a repository without owner was accepted")
	}
}
