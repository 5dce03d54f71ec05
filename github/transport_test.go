package github

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

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

// The config's github.timeout reaches the requests of the client built
// before the config was loaded, through their context (WithTimeout): a
// GitHub that never answers fails the call once it has passed, saying so.
func TestWithTimeoutBoundsEachRequest(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c, err := New(Config{APIURL: srv.URL + "/", Timeout: time.Hour, Retry: Retry{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = c.PullRequests.Get(WithTimeout(context.Background(), 200*time.Millisecond), "o", "r", 1)
	if err == nil || !strings.Contains(err.Error(), "GitHub did not answer within 200ms (github.timeout)") || time.Since(start) > 30*time.Second {
		t.Fatalf("err %v after %s, want the 200ms of the context, not the client's hour", err, time.Since(start))
	}
}
