// Package prcomment is the pull-request side of the verify tier's
// checkpoints, on go-github v60: it finds the pull request from the
// GitHub Actions event, reads the checkpoint comments, the reply comments
// and the reactions of authorized people, creates or edits one comment
// per checkpoint (found by its hidden marker and the tool's identity) and
// sets a commit status `ralph-ci/<spec>` per checkpoint. It implements
// gate.Channel.
//
// Authorization: an answer counts when its author is in the config's
// approvers list or has a collaborator permission at least
// github.required_permission (never by author_association). Bots, the
// tool's own comments and, when github.ignore_pr_author is set, the pull
// request's author are ignored; every ignored answer is logged with why.
// Those github settings come from the config on the pull request's base
// commit, not from the pull request's own (see trust.go), unless the
// config file did not come from the pull request (Options.TrustConfig).
//
// A token that may not write (403/404 on a comment or a status) falls
// back to a workflow annotation and the job summary, with a clear message.
package prcomment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"
	"github.com/rs/zerolog"

	rgithub "github.com/ralph-ci/ralph-ci/reporters/github"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Client talks to one pull request.
type Client struct {
	gh          *gh.Client
	owner, repo string
	pr          int
	cfg         schema.GitHub  // who may approve: the base commit's, once trusted is set
	trustGiven  bool           // cfg did not come from the pull request
	files       []string       // the config's paths on the base commit, tried in order
	trusted     bool           // cfg is settled
	base        string         // the pull request's base commit (else ref), once trusted is set
	baseTier    string         // specs.default_tier of the base's config ("" unknown: fail closed)
	prOwn       *schema.GitHub // the pull request's own section, when it differs from the base's
	log         zerolog.Logger
	actions     rgithub.Env
	annotations interface{ Write(p []byte) (int, error) }

	self     string            // the token's login, "" when unknown
	perms    map[string]string // login -> permission
	prAuthor string
	head     string
	bodies   map[int64]string // comment id -> body, as last read
	readOnly bool             // the token may not write: fall back
}

// Options configure New.
type Options struct {
	Env Env
	PR  int
	// Config is the github section of the loaded config. On a pull
	// request that config is the pull request's own, so unless
	// TrustConfig is set it is only compared with the section read from
	// the base commit's config (at ConfigFiles), which decides who may
	// approve.
	Config schema.GitHub
	// ConfigFiles are the config's paths relative to the repository
	// root (slash-separated), looked for in this order on the pull
	// request's base commit: the file loaded, then, for a config found at
	// the root rather than named, the other names it may have had there.
	// Empty (and not TrustConfig): the defaults decide, with a warning.
	ConfigFiles []string
	// TrustConfig takes Config as given: the file did not come from the
	// pull request (it lies outside the repository's checkout, e.g. the
	// base branch checked out beside it).
	TrustConfig bool
	// DefaultTier is the loaded config's specs.default_tier, which with
	// TrustConfig is the base's (see RaiseTiers).
	DefaultTier string
	Log         zerolog.Logger
	// Actions and Stdout receive the fallback (job summary, annotations).
	Actions rgithub.Env
	Stdout  interface{ Write(p []byte) (int, error) }
	// HTTP is the base transport (nil: http.DefaultTransport).
	HTTP  http.RoundTripper
	Retry Retry
}

// New builds a client for the pull request, honouring GITHUB_API_URL.
func New(o Options) (*Client, error) {
	owner, repo, err := o.Env.ownerRepo()
	if err != nil {
		return nil, err
	}
	base := o.HTTP
	if base == nil {
		base = http.DefaultTransport
	}
	r := o.Retry
	if r.Attempts == 0 {
		r = DefaultRetry
	}
	hc := &http.Client{Transport: &transport{base: base, retry: r, timeout: o.Config.Timeout.Std(), sleep: sleepCtx}}
	c := gh.NewClient(hc)
	if o.Env.Token != "" {
		c = c.WithAuthToken(o.Env.Token)
	}
	if api := o.Env.APIURL; api != "" && api != "https://api.github.com" {
		u, err := url.Parse(strings.TrimSuffix(api, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("GITHUB_API_URL %q: %w", api, err)
		}
		c.BaseURL = u
	}
	return &Client{gh: c, owner: owner, repo: repo, pr: o.PR, cfg: o.Config, trustGiven: o.TrustConfig, files: o.ConfigFiles, baseTier: o.DefaultTier, log: o.Log, actions: o.Actions,
		annotations: o.Stdout, perms: map[string]string{}, bodies: map[int64]string{}}, nil
}

// rank orders permissions; unknown ones rank lowest.
func rank(p string) int {
	switch p {
	case "admin":
		return 5
	case "maintain":
		return 4
	case "write":
		return 3
	case "triage":
		return 2
	case "read":
		return 1
	}
	return 0
}

// permission is the collaborator permission of login (role_name, which
// knows maintain and triage, else the legacy permission field).
func (c *Client) permission(ctx context.Context, login string) (string, error) {
	if p, ok := c.perms[login]; ok {
		return p, nil
	}
	req, err := c.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", c.owner, c.repo, url.PathEscape(login)), nil)
	if err != nil {
		return "", err
	}
	var v struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := c.gh.Do(ctx, req, &v); err != nil {
		var er *gh.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			c.perms[login] = "none" // not a collaborator
			return "none", nil
		}
		return "", fmt.Errorf("collaborator permission of %s: %w", login, err)
	}
	p := v.Permission
	if rank(v.RoleName) > 0 {
		p = v.RoleName
	}
	c.perms[login] = p
	return p, nil
}

// authorize says why an answer by user does not count ("" when it does).
// When the pull request's own github section, which is ignored, would
// have let it count, the reason says so.
func (c *Client) authorize(ctx context.Context, u *gh.User) (string, error) {
	why, err := c.authorizeWith(ctx, u, c.cfg)
	if err != nil || why == "" || c.prOwn == nil {
		return why, err
	}
	if own, err := c.authorizeWith(ctx, u, *c.prOwn); err == nil && own == "" {
		why += "; the pull request's own config would let it count, but a pull request may not decide who approves it: the github section is read from the config on its base commit"
	}
	return why, nil
}

func (c *Client) authorizeWith(ctx context.Context, u *gh.User, cfg schema.GitHub) (string, error) {
	login := u.GetLogin()
	switch {
	case u.GetType() == "Bot" || strings.HasSuffix(login, "[bot]"):
		return "a bot", nil
	case c.self != "" && strings.EqualFold(login, c.self):
		return "ralph-ci's own comment", nil
	case cfg.IgnorePRAuthor && strings.EqualFold(login, c.prAuthor):
		return "the pull request's author (github.ignore_pr_author)", nil
	}
	for _, a := range cfg.Approvers {
		if strings.EqualFold(a, login) {
			return "", nil
		}
	}
	p, err := c.permission(ctx, login)
	if err != nil {
		return "", err
	}
	need := cfg.RequiredPermission
	if need == "" {
		need = "write"
	}
	if rank(p) < rank(need) {
		return fmt.Sprintf("permission %q is below github.required_permission %q and not in github.approvers", p, need), nil
	}
	return "", nil
}

// isNoPermission tells a write refused for lack of permission.
func isNoPermission(err error) bool {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode == http.StatusForbidden || er.Response.StatusCode == http.StatusNotFound
	}
	return false
}

// isNotFound tells a 404.
func isNotFound(err error) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// isServerError tells a 5xx.
func isServerError(err error) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode >= 500
}
