package pulls

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

var _ deliver.Binder = (*Client)(nil)

// maxStatusPages bounds the pages of statuses read for one commit
// (GitHub keeps at most 1000 per context and commit).
const maxStatusPages = 100

// WithLogin names the login the token writes as (the Action's
// github-login input, a GitHub App's "name[bot]"); without it the client
// asks /user, else takes github.ActionsLogin (github.Self).
func (c *Client) WithLogin(login string) *Client {
	c.self = strings.TrimPrefix(strings.TrimSpace(login), "@")
	return c
}

// login is who the token writes as (see WithLogin).
func (c *Client) login(ctx context.Context) string {
	if c.self == "" {
		c.self = github.Self(ctx, c.users, "")
	}
	return c.self
}

// SetStatus implements deliver.Binder: a success status of context
// ctxName with description desc on commit.
func (c *Client) SetStatus(ctx context.Context, commit, ctxName, desc string) error {
	st := &gh.RepoStatus{State: gh.String("success"), Context: gh.String(ctxName), Description: gh.String(desc)}
	if _, _, err := c.statuses.CreateStatus(ctx, c.owner, c.repo, commit, st); err != nil {
		return fmt.Errorf("set the status %s on %.12s: %w", ctxName, commit, err)
	}
	return nil
}

// OwnStatuses implements deliver.Binder: the descriptions of the statuses
// of context ctxName on commit set by the token's own login, newest
// first. Nobody else can create a status as that login, and nobody can
// edit or delete one.
func (c *Client) OwnStatuses(ctx context.Context, commit, ctxName string) ([]string, error) {
	self := c.login(ctx)
	opts := &gh.ListOptions{PerPage: 100}
	var out []string
	for {
		page, resp, err := c.statuses.ListStatuses(ctx, c.owner, c.repo, commit, opts)
		if err != nil {
			return nil, fmt.Errorf("statuses of %.12s: %w", commit, err)
		}
		for _, st := range page {
			if st.GetContext() == ctxName && strings.EqualFold(st.GetCreator().GetLogin(), self) {
				out = append(out, st.GetDescription())
			}
		}
		if resp.NextPage <= opts.Page || resp.NextPage > maxStatusPages {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
