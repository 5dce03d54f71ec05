package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry bounds the retries of GitHub API calls.
type Retry struct {
	Attempts int           // tries in all, the first included
	Base     time.Duration // first back-off, doubled each time
	Max      time.Duration // longest single wait; a longer rate-limit reset is not waited for
}

// DefaultRetry is used when a Client's Retry is zero.
var DefaultRetry = Retry{Attempts: 5, Base: time.Second, Max: time.Minute}

// DefaultTimeout bounds one GitHub API request (sending it, and reading
// its answer) when the config's github.timeout is not set.
const DefaultTimeout = 30 * time.Second

// secondaryWait is the least wait after a secondary rate limit that gave
// no Retry-After: GitHub asks to wait at least a minute, then longer.
const secondaryWait = time.Minute

// peekLimit bounds the part of an error body read to recognise a
// secondary rate limit.
const peekLimit = 64 << 10

// transport retries server errors (5xx) and rate limits: 429 (which
// go-github v60 does not map to a rate-limit error), and 403 with
// X-RateLimit-Remaining: 0 or Retry-After (primary and secondary limits),
// waiting Retry-After, the rate-limit reset or an exponential back-off,
// within Retry's bounds. A POST that failed with 5xx may have been
// carried out, so only the idempotent ones (statuses) are retried; the
// caller checks before creating a comment again.
//
// Every attempt has a deadline (timeout) that covers reading its answer,
// so a server that never answers, or answers forever, cannot hold a run.
type transport struct {
	base    http.RoundTripper
	retry   Retry
	timeout time.Duration
	sleep   func(context.Context, time.Duration) error
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		if attempt > 1 && req.Body != nil && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		resp, err := t.attempt(req)
		if err != nil || attempt >= t.retry.Attempts {
			return resp, err
		}
		wait, retry := t.backoff(req, resp, attempt)
		if !retry {
			return resp, nil
		}
		resp.Body.Close()
		if err := t.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends req once, within the timeout its context carries
// (WithTimeout), else t.timeout.
func (t *transport) attempt(req *http.Request) (*http.Response, error) {
	timeout, _ := req.Context().Value(timeoutKey{}).(time.Duration)
	if timeout <= 0 {
		timeout = t.timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
			return nil, fmt.Errorf("%s %s: GitHub did not answer within %s (github.timeout): %w", req.Method, req.URL.Path, timeout, err)
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody ends its request's deadline when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// secondaryLimit tells whether resp is GitHub's secondary rate limit
// (a 403 or 429 whose message says so). It reads at most peekLimit bytes
// of the body and puts them back.
func secondaryLimit(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, peekLimit))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return err == nil && bytes.Contains(bytes.ToLower(head), []byte("secondary rate limit"))
}

// backoff decides whether resp is worth another try, and after how long.
func (t *transport) backoff(req *http.Request, resp *http.Response, attempt int) (time.Duration, bool) {
	exp := t.retry.Base << (attempt - 1)
	h := resp.Header
	secondary := h.Get("Retry-After") == "" && h.Get("X-RateLimit-Remaining") != "0" && secondaryLimit(resp)
	limited := resp.StatusCode == http.StatusTooManyRequests || secondary ||
		(resp.StatusCode == http.StatusForbidden && (h.Get("X-RateLimit-Remaining") == "0" || h.Get("Retry-After") != ""))
	switch {
	case limited:
	case resp.StatusCode >= 500 && (req.Method != http.MethodPost || strings.Contains(req.URL.Path, "/statuses/")):
	default:
		return 0, false
	}
	wait := exp
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		wait = time.Duration(s) * time.Second
	} else if limited && h.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			wait = max(0, time.Until(time.Unix(reset, 0)))
		}
	}
	if secondary {
		// No Retry-After: at least a minute (as GitHub asks) but no
		// more than Max, growing with each attempt.
		wait = max(exp, min(secondaryWait, t.retry.Max))
	}
	if wait > t.retry.Max {
		return 0, false // the limit resets too late: report it
	}
	return wait, true
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
