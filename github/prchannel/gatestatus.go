package prchannel

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

// DefaultGateContext is the context of the one merge-gate status
// (github.status_context).
const DefaultGateContext = "ralph-ci"

// Gate sets the one status on sha (the pull request's head when ""),
// with the run's page as target: context is github.status_context. When
// ralph-ci's newest one there already says the same, it writes nothing
// (a scheduled check that found nothing new writes nothing).
func (c *Client) Gate(ctx context.Context, sha, context, targetURL string, v gate.Verdict) error {
	if sha == "" {
		sha = c.head
	}
	if c.readOnly || sha == "" {
		return nil
	}
	if state, desc, err := c.GateOn(ctx, sha, context); err == nil && state == v.State && desc == v.Description {
		return nil
	}
	st := &gh.RepoStatus{State: &v.State, Description: &v.Description, Context: &context}
	if targetURL != "" {
		st.TargetURL = &targetURL
	}
	_, _, err := c.api.Statuses.CreateStatus(ctx, c.owner, c.repo, sha, st)
	delete(c.statuses, sha)
	if err != nil && isNoPermission(err) {
		c.log.Warn().Err(err).Str("context", context).Msg("the GitHub token may not set commit statuses (permissions: statuses: write); the exit code is the gate")
		return nil
	}
	if err != nil {
		return fmt.Errorf("set the %s status on %.7s: %w", context, sha, err)
	}
	c.log.Info().Str("context", context).Str("sha", sha).Str("state", v.State).Msg(v.Description)
	return nil
}

// GateOn is the newest status of context on sha set by ralph-ci's own
// token ("" when none): its record, which nobody else can write.
func (c *Client) GateOn(ctx context.Context, sha, context string) (state, description string, err error) {
	if sha == "" {
		sha = c.head
	}
	if sha == "" {
		return "", "", nil
	}
	c.whoAmI(ctx)
	all, err := c.statusesOf(ctx, sha)
	if err != nil {
		return "", "", err
	}
	for _, st := range all { // newest first
		if st.GetContext() == context && c.own(st.GetCreator()) {
			return st.GetState(), st.GetDescription(), nil
		}
	}
	return "", "", nil
}

// Head is the pull request's head commit as last read.
func (c *Client) Head() string { return c.head }

// ReadHead reads the pull request's head (for a gate status set before
// anything else read it, e.g. on a broken config).
func (c *Client) ReadHead(ctx context.Context) error {
	pr, _, err := c.api.PullRequests.Get(ctx, c.owner, c.repo, c.pr)
	if err != nil {
		return fmt.Errorf("pull request #%d: %w", c.pr, err)
	}
	c.head, c.prURL = pr.GetHead().GetSHA(), pr.GetHTMLURL()
	return nil
}
