package prchannel

import (
	"context"
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

// transport retries server errors (5xx) and rate limits: 429 (which
// go-github v60 does not map to a rate-limit error), and 403 with
// X-RateLimit-Remaining: 0 or Retry-After (primary and secondary limits),
// waiting Retry-After, the rate-limit reset or an exponential back-off,
// within Retry's bounds. A POST that failed with 5xx may have been
// carried out, so only the idempotent ones (statuses) are retried; the
// caller checks before creating a comment again.
type transport struct {
	base  http.RoundTripper
	retry Retry
	sleep func(context.Context, time.Duration) error
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
		resp, err := t.base.RoundTrip(req)
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

// backoff decides whether resp is worth another try, and after how long.
func (t *transport) backoff(req *http.Request, resp *http.Response, attempt int) (time.Duration, bool) {
	exp := t.retry.Base << (attempt - 1)
	h := resp.Header
	limited := resp.StatusCode == http.StatusTooManyRequests ||
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
