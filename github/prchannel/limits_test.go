package prchannel

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/schema"
)

// newTestClient is a Client of pull request #1 on the server at url.
func newTestClient(t *testing.T, url string, timeout time.Duration, retry github.Retry) *Client {
	t.Helper()
	repo := RepoForTest(t, github.Config{APIURL: url, Token: "t", Timeout: timeout, Retry: retry, Log: zerolog.Nop()}, "o/r")
	return New(repo, Options{PR: 1, Config: schema.GitHub{Timeout: schema.Duration(timeout)}, Log: zerolog.Nop()})
}

// A GitHub that never answers cannot hold a run: the call fails once
// github.timeout has passed, saying so.
func TestCallsHaveADeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/pulls/") {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush() // headers sent, then a body that never comes
		}
		<-release
	}))
	defer srv.Close()
	defer close(release)
	c := newTestClient(t, srv.URL+"/", 200*time.Millisecond, github.Retry{Attempts: 1})
	for _, call := range []struct {
		name string
		do   func() error
	}{
		{"no answer", func() error { _, err := c.comments(context.Background()); return err }},
		{"an answer that never ends", func() error { _, _, err := c.api.PullRequests.Get(context.Background(), "o", "r", 1); return err }},
	} {
		start := time.Now()
		err := call.do()
		if err == nil || time.Since(start) > 5*time.Second {
			t.Fatalf("%s: err %v after %s, want an error soon after 200ms", call.name, err, time.Since(start))
		}
		if call.name == "no answer" && !strings.Contains(err.Error(), "GitHub did not answer within 200ms (github.timeout)") {
			t.Errorf("%s: err %v, want it to name the timeout", call.name, err)
		}
	}
}

// A Link: rel="next" that never ends, or points back, stops with an error
// instead of looping without bound.
func TestPaginationIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		next     func(page int) int
		requests int64
		want     string
	}{
		{"endless", func(p int) int { return p + 1 }, MaxPages, fmt.Sprintf("more than %d pages", MaxPages)},
		{"points back", func(p int) int { return 1 }, 2, "does not follow page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				page := 1
				fmt.Sscan(r.URL.Query().Get("page"), &page)
				w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=%d>; rel="next"`, srv.URL, r.URL.Path, tc.next(page)))
				fmt.Fprint(w, `[{"id": 1, "body": "x"}]`)
			}))
			defer srv.Close()
			c := newTestClient(t, srv.URL+"/", time.Second, github.Retry{Attempts: 1})
			_, err := c.comments(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || n.Load() != tc.requests {
				t.Fatalf("err %v after %d requests, want %q after %d", err, n.Load(), tc.want, tc.requests)
			}
		})
	}
}
