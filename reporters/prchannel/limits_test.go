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

	"github.com/ralph-ci/ralph-ci/schema"
)

// newTestClient is a Client of pull request #1 on the server at url.
func newTestClient(t *testing.T, url string, timeout time.Duration, retry Retry) *Client {
	t.Helper()
	c, err := New(Options{Env: Env{APIURL: url, Repository: "o/r", Token: "t"}, PR: 1,
		Config: schema.GitHub{Timeout: schema.Duration(timeout)}, Log: zerolog.Nop(), Retry: retry})
	if err != nil {
		t.Fatal(err)
	}
	return c
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
	c := newTestClient(t, srv.URL+"/", 200*time.Millisecond, Retry{Attempts: 1})
	for _, call := range []struct {
		name string
		do   func() error
	}{
		{"no answer", func() error { _, err := c.comments(context.Background()); return err }},
		{"an answer that never ends", func() error { _, _, err := c.gh.PullRequests.Get(context.Background(), "o", "r", 1); return err }},
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
			c := newTestClient(t, srv.URL+"/", time.Second, Retry{Attempts: 1})
			_, err := c.comments(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || n.Load() != tc.requests {
				t.Fatalf("err %v after %d requests, want %q after %d", err, n.Load(), tc.want, tc.requests)
			}
		})
	}
}

// A 403 secondary rate limit without Retry-After is retried after at
// least a minute (as GitHub asks; bounded by Retry.Max), not reported as
// a permission error at once.
func TestSecondaryRateLimitWithoutRetryAfter(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
			return
		}
		fmt.Fprint(w, `[]`)
	}))
	defer srv.Close()
	var waits []time.Duration
	tr := &transport{base: http.DefaultTransport, retry: Retry{Attempts: 5, Base: time.Second, Max: 2 * time.Minute}, timeout: time.Second,
		sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL + "/repos/o/r/issues/1/comments")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(waits) != 2 || waits[0] != time.Minute || waits[1] != time.Minute {
		t.Fatalf("status %d after waits %v, want 200 after two waits of a minute", resp.StatusCode, waits)
	}

	// Retries are bounded: a limit that never lifts is reported, with its
	// body intact for the caller.
	n.Store(-100)
	waits = nil
	tr.retry.Attempts = 3
	resp, err = (&http.Client{Transport: tr}).Get(srv.URL + "/repos/o/r/issues/1/comments")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := make([]byte, 200)
	k, _ := resp.Body.Read(body)
	if resp.StatusCode != http.StatusForbidden || len(waits) != 2 || !strings.Contains(string(body[:k]), "secondary rate limit") {
		t.Fatalf("status %d after %d waits, body %q; want the 403 after 2 waits", resp.StatusCode, len(waits), body[:k])
	}
}
