// Package prchannel is the pull-request side of the verify tier's
// checkpoints, on go-github v60: it finds the pull request from the
// GitHub Actions event, reads the checkpoint comments, the reply comments
// and the reactions of authorized people, creates or edits one comment
// per checkpoint (found by its hidden marker and the tool's identity) and
// sets a commit status `ralph-ci/<spec>` per checkpoint. It implements
// gate.Channel, gate.Confirmer (an answer read again by id, confirm.go)
// and gate.Ledger and gate.Timeline (its own statuses read back, with
// their times, ledger.go).
//
// Authorization is decided by the gate (gate.Approvers: the configured
// approvers, or a collaborator permission at least
// github.required_permission, never author_association; bots, the tool's
// own comments and, with github.ignore_pr_author, the pull request's
// author never count); the channel reads what it needs and logs every
// ignored answer with why. The github settings come from the config on
// the pull request's base commit, not from the pull request's own (see
// trust.go), unless the config file did not come from the pull request
// (Options.TrustConfig).
//
// A token that may not write (403/404 on a comment or a status) falls
// back to a workflow annotation and the job summary, with a clear message.
package prchannel

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	gh "github.com/google/go-github/v60/github"
	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Client talks to one pull request.
type Client struct {
	api         github.Repo // the parts of the GitHub API it uses
	owner, repo string
	pr          int
	cfg         schema.GitHub  // who may approve: the base commit's, once trusted is set
	trustGiven  bool           // cfg did not come from the pull request
	files       []string       // the config's paths on the base commit, tried in order
	trusted     bool           // cfg is settled
	base        string         // the pull request's base commit (else ref), once trusted is set
	baseTier    string         // specs.default_tier of the base's config ("" unknown: fail closed)
	baseSpecs   *schema.Specs  // the specs section that decides which specs exist (nil: unknown)
	specs       schema.Specs   // the loaded config's specs section
	left        []string       // verify-tier specs of the base that left the pull request
	removed     []plan.Spec    // their removal checkpoints (gate.RemovalSpec)
	prOwn       *schema.GitHub // the pull request's own section, when it differs from the base's
	log         zerolog.Logger
	actions     actions.Env
	annotations interface{ Write(p []byte) (int, error) }

	self     string            // the token's login, "" when unknown
	perms    map[string]string // login -> permission
	prAuthor string
	prURL    string // the pull request's web page: the target of its statuses
	head     string
	bodies   map[int64]string            // comment id -> body, as last read
	commits  []string                    // the pull request's commits, newest first (nil: not read since Read)
	statuses map[string][]*gh.RepoStatus // sha -> its statuses, newest first (see statusesOf)
	readOnly bool                        // the token may not write: fall back
}

// Options configure New.
type Options struct {
	PR int
	// Login is the login the token writes as (jobenv.PR.Login), "" to ask.
	Login string
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
	// Specs is the loaded config's specs section, which with TrustConfig
	// says which specs exist on the base too (see BaseSpecs).
	Specs schema.Specs
	Log   zerolog.Logger
	// Actions and Stdout receive the fallback (job summary, annotations).
	Actions actions.Env
	Stdout  interface{ Write(p []byte) (int, error) }
}

// New is the channel of pull request o.PR of the repository api, the
// job's one client of the GitHub port (built at the door, with the
// token, GITHUB_API_URL and its deadlines): the channel talks to it
// through the small interfaces of github.Repo (pull requests, statuses,
// comments, contents, commits, users, requests) and builds no client.
func New(api github.Repo, o Options) *Client {
	return &Client{api: api, owner: api.Owner, repo: api.Name, pr: o.PR, cfg: o.Config, trustGiven: o.TrustConfig, files: o.ConfigFiles, baseTier: o.DefaultTier, specs: o.Specs, log: o.Log, actions: o.Actions,
		annotations: o.Stdout, self: o.Login, perms: map[string]string{}, bodies: map[int64]string{}, statuses: map[string][]*gh.RepoStatus{}}
}

// permission is the collaborator permission of login (role_name, which
// knows maintain and triage, else the legacy permission field).
func (c *Client) permission(ctx context.Context, login string) (string, error) {
	if p, ok := c.perms[login]; ok {
		return p, nil
	}
	req, err := c.api.Requests.NewRequest("GET", fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", c.owner, c.repo, url.PathEscape(login)), nil)
	if err != nil {
		return "", err
	}
	var v struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := c.api.Requests.Do(ctx, req, &v); err != nil {
		var er *gh.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			c.perms[login] = "none" // not a collaborator
			return "none", nil
		}
		return "", fmt.Errorf("collaborator permission of %s: %w", login, err)
	}
	p := v.Permission
	if gate.Rank(v.RoleName) > 0 {
		p = v.RoleName
	}
	c.perms[login] = p
	return p, nil
}

// authorize says why an answer by u does not count ("" when it does).
// The rule is the gate's (gate.Approvers); the client knows the people.
func (c *Client) authorize(ctx context.Context, u *gh.User) (string, error) {
	a := gate.Approvers{Config: c.cfg, PROwn: c.prOwn, Self: c.self, PRAuthor: c.prAuthor}
	return a.Why(ctx, gate.Person{Login: u.GetLogin(), Bot: u.GetType() == "Bot"}, c.permission)
}

// isNoPermission, isNotFound and isServerError class go-github's errors.
var (
	isNoPermission = github.IsNoPermission
	isNotFound     = github.IsNotFound
	isServerError  = github.IsServerError
)
