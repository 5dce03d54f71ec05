// Package github is ralph-ci's one port to the GitHub REST API: it builds
// the go-github client once, for every caller (the pull-request channel
// github/prchannel, the opener of ralph-ci's own pull request
// github/pulls, the sweep of a scheduled check), with the token, the API
// URL (github.com, or GitHub Enterprise through go-github's
// WithEnterpriseURLs), a deadline on every request, retries of server
// errors and rate limits within bounds, and a debug log of each call with
// the token never in it. Nothing else constructs a client.
//
// The callers take the small interfaces of this package for what they
// need (PullRequests, Statuses, Contents, Comments, Dispatch, Users); a Repo
// holds them for one repository.
package github

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
	"github.com/rs/zerolog"
)

// PublicAPI is github.com's API URL.
const PublicAPI = "https://api.github.com"

// Config is what the client is built with.
type Config struct {
	// APIURL is GITHUB_API_URL: "" or PublicAPI for github.com, else a
	// GitHub Enterprise Server (https://HOST/api/v3) or GHE.com
	// (https://api.NAME.ghe.com).
	APIURL string
	Token  string
	// Timeout bounds one request, its answer read (0: DefaultTimeout).
	Timeout time.Duration
	// Retry bounds the retries (zero: DefaultRetry).
	Retry Retry
	// HTTP is the base transport (nil: http.DefaultTransport).
	HTTP http.RoundTripper
	// Log gets one debug line per request (method, path, status).
	Log zerolog.Logger
}

// timeoutKey is the context key of WithTimeout.
type timeoutKey struct{}

// WithTimeout is ctx whose GitHub API requests each get d (github.timeout)
// instead of the client's Timeout; d <= 0 changes nothing. The client is
// built once at the door, before the config that sets the timeout is
// loaded: a command hands the config's timeout to the requests it makes
// from then on.
func WithTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, timeoutKey{}, d)
}

// New builds the go-github client of c. A debug line says so: a job
// builds one (the job session's), and its log shows when another is.
func New(c Config) (*gh.Client, error) {
	base := c.HTTP
	if base == nil {
		base = http.DefaultTransport
	}
	r := c.Retry
	if r.Attempts == 0 {
		r = DefaultRetry
	}
	t := &transport{base: &logged{base: base, log: c.Log}, retry: r, timeout: c.Timeout, sleep: sleepCtx}
	client := gh.NewClient(&http.Client{Transport: t})
	if c.Token != "" {
		client = client.WithAuthToken(c.Token)
	}
	if api := strings.TrimSuffix(c.APIURL, "/"); api != "" && api != PublicAPI {
		var err error
		if client, err = client.WithEnterpriseURLs(api+"/", api+"/"); err != nil {
			return nil, fmt.Errorf("GITHUB_API_URL %q: %w", c.APIURL, err)
		}
	}
	c.Log.Debug().Str("api", cmp.Or(c.APIURL, PublicAPI)).Msg("GitHub API: client built")
	return client, nil
}

// logged writes a debug line for every request: its method, path and
// answer. The token travels in a header, which is never logged.
type logged struct {
	base http.RoundTripper
	log  zerolog.Logger
}

func (l *logged) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	ev := l.log.Debug().Str("method", req.Method).Str("path", req.URL.Path)
	if err != nil {
		ev.Err(err).Msg("GitHub API")
		return resp, err
	}
	ev.Int("status", resp.StatusCode).Msg("GitHub API")
	return resp, nil
}
