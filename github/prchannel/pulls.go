package prchannel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// StatusPrefix starts the context of every commit status ralph-ci sets:
// "ralph-ci/<spec>".
const StatusPrefix = "ralph-ci/"

// maxPages bounds a sweep's listings (of 100 each), well below MaxPages:
// the sweep runs every time, so it lists at most 1,000 pull requests.
const maxPages = 10

// Sweeper is the repository side of check on a schedule (gate.Pulls): it
// lists the open pull requests through the API, reads the ralph-ci
// commit statuses of their heads, and builds the channel of each as check
// on that pull request would (who may approve and the tiers from its
// base), with the specs its checkpoints name read at its head.
type Sweeper struct {
	c      *Client        // the repository's
	opts   Options        // of each pull request's channel, PR aside
	cfg    *schema.Config // resolves the specs read at a head
	prefix string         // the specs' root in the repository ("" or "dir/")
}

var _ gate.Pulls = (*Sweeper)(nil)

// NewSweeper is the sweeper of the repository api: o as for New (PR is
// ignored), cfg the loaded config, prefix the specs' root in the
// repository (gate.RepoPrefix). Each pull request's channel talks to the
// same api.
func NewSweeper(api github.Repo, o Options, cfg *schema.Config, prefix string) *Sweeper {
	o.PR = 0
	return &Sweeper{c: New(api, o), opts: o, cfg: cfg, prefix: prefix}
}

// OpenPulls implements gate.Pulls: the open pull requests, oldest first.
func (s *Sweeper) OpenPulls(ctx context.Context) ([]gate.Pull, error) {
	opts := &gh.PullRequestListOptions{State: "open", Sort: "created", Direction: "asc", ListOptions: gh.ListOptions{PerPage: 100}}
	var out []gate.Pull
	for range maxPages {
		page, resp, err := s.c.api.PullRequests.List(ctx, s.c.owner, s.c.repo, opts)
		if err != nil {
			return nil, fmt.Errorf("open pull requests of %s/%s: %w", s.c.owner, s.c.repo, err)
		}
		for _, pr := range page {
			out = append(out, gate.Pull{Number: pr.GetNumber(), Head: pr.GetHead().GetSHA()})
		}
		next, err := nextPage(resp, opts.Page, "open pull requests")
		if next == 0 || err != nil {
			return out, err
		}
		opts.Page = next
	}
	s.c.log.Warn().Int("listed", len(out)).Msg("more open pull requests than a sweep lists: the newest are not looked at")
	return out, nil
}

// Checkpoints implements gate.Pulls from the combined status of p's head.
func (s *Sweeper) Checkpoints(ctx context.Context, p gate.Pull) (specs []string, waiting bool, err error) {
	opts := &gh.ListOptions{PerPage: 100}
	for range maxPages {
		combined, resp, err := s.c.api.Statuses.GetCombinedStatus(ctx, s.c.owner, s.c.repo, p.Head, opts)
		if err != nil {
			return nil, false, err
		}
		for _, st := range combined.Statuses {
			if spec, ok := strings.CutPrefix(st.GetContext(), StatusPrefix); ok && s.isSpec(spec) {
				specs = append(specs, spec)
				waiting = waiting || st.GetState() != "success"
			}
		}
		next, err := nextPage(resp, opts.Page, "statuses of "+p.Head)
		if next == 0 || err != nil {
			return specs, waiting, err
		}
		opts.Page = next
	}
	return specs, waiting, nil
}

// isSpec tells whether path is where the config looks for specs: the
// prompt file, or a *.spec.md under one of the spec folders. A status
// naming anything else is not ralph-ci's.
func (s *Sweeper) isSpec(p string) bool {
	if p == s.cfg.Specs.Prompt {
		return true
	}
	for _, d := range s.cfg.Specs.Dirs {
		if strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") && strings.HasSuffix(p, ".spec.md") && !strings.Contains(p, "..") {
			return true
		}
	}
	return false
}

// Channel implements gate.Pulls: a client for p, and the plans of specs
// read at p's head through the contents API, their tiers raised by its
// base (RaiseTiers).
func (s *Sweeper) Channel(ctx context.Context, p gate.Pull, specs []string) (gate.Channel, []plan.Spec, error) {
	o := s.opts
	o.PR = p.Number
	c := New(s.c.api, o)
	var plans []plan.Spec
	for _, spec := range specs {
		src, found, err := c.fileAt(ctx, s.prefix+spec, p.Head)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s at %s: %w", spec, p.Head, err)
		}
		if !found {
			c.log.Warn().Str("spec", spec).Str("head", p.Head).Msg("the spec of a checkpoint is gone from the pull request's head: its checkpoint is not judged")
			continue
		}
		fm, err := schema.LoadFrontMatter(spec, src)
		if err != nil {
			return nil, nil, fmt.Errorf("%s at %s: %w", spec, p.Head, err)
		}
		plans = append(plans, plan.Resolve(s.cfg, discovered(spec, spec == s.cfg.Specs.Prompt, src), fm))
	}
	c.RaiseTiers(ctx, plans, s.prefix)
	return c, append(plans, c.Removals()...), nil
}

// discovered is the discovery record of a spec read through the API.
func discovered(p string, prompt bool, src []byte) discovery.Spec {
	name := strings.TrimSuffix(path.Base(p), ".md")
	if prompt {
		name = discovery.PromptName
	}
	sum := sha256.Sum256(src)
	return discovery.Spec{Path: p, Name: name, Key: discovery.KeyFor(name, p), Hash: hex.EncodeToString(sum[:]), Prompt: prompt}
}

// RateLimited tells an error that is the API's rate limit, primary (a
// 403 with X-RateLimit-Remaining: 0, or 429) or secondary (a 403 that
// says so or carries Retry-After), once the transport's retries gave up.
func RateLimited(err error) bool {
	var rl *gh.RateLimitError
	var ab *gh.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) {
		return true
	}
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return false
	}
	h := er.Response.Header
	switch er.Response.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		return h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0" || strings.Contains(strings.ToLower(er.Message), "rate limit")
	}
	return false
}

// Only is s narrowed to pull request number (pull_request_target's).
func (s *Sweeper) Only(number int) gate.Pulls { return onePull{s, number} }

// onePull is a sweeper narrowed to one pull request.
type onePull struct {
	*Sweeper
	number int
}

func (o onePull) OpenPulls(ctx context.Context) ([]gate.Pull, error) {
	all, err := o.Sweeper.OpenPulls(ctx)
	for _, p := range all {
		if p.Number == o.number {
			return []gate.Pull{p}, err
		}
	}
	return nil, err
}
