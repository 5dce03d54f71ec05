// Package pulls finds and opens pull requests through the GitHub REST API
// (the github port), for CI delivery: the head branch of a pull request
// whose event payload does not name it (issue_comment), the pull request
// of ralph-ci's own branch, opened or updated, and the commit statuses that
// bind the loop's state to the commit it describes (deliver.Binder).
package pulls

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v60/github"
	"github.com/ralph-ci/ralph-ci/github"
)

// Client talks to one repository's pull requests and commit statuses.
type Client struct {
	prs         github.PullRequests
	statuses    github.Statuses
	users       github.Users
	dispatch    github.Dispatch
	commits     github.Commits
	collab      github.Collaborators
	owner, repo string
	self        string // the token's login, "" until known (see login)
}

// New is the client of the pull requests of r (github.RepoOf).
func New(r github.Repo) *Client {
	return &Client{prs: r.PullRequests, statuses: r.Statuses, users: r.Users, dispatch: r.Dispatch, commits: r.Commits, collab: r.Collaborators, owner: r.Owner, repo: r.Name}
}

// Head is a pull request's head and base, as delivery needs them.
type Head struct {
	Ref, SHA           string
	HeadRepo, BaseRepo string // owner/name
	DefaultBranch      string
	// HeadCloneURL is the head repository's clone URL, and
	// MaintainerCanModify whether its owner lets maintainers push to the
	// head branch (a fork's).
	HeadCloneURL        string
	MaintainerCanModify bool
}

// Head reads pull request number's head.
func (c *Client) Head(ctx context.Context, number int) (Head, error) {
	pr, _, err := c.prs.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return Head{}, fmt.Errorf("read pull request #%d: %w", number, err)
	}
	return Head{Ref: pr.GetHead().GetRef(), SHA: pr.GetHead().GetSHA(), HeadRepo: pr.GetHead().GetRepo().GetFullName(),
		BaseRepo: pr.GetBase().GetRepo().GetFullName(), DefaultBranch: pr.GetBase().GetRepo().GetDefaultBranch(),
		HeadCloneURL: pr.GetHead().GetRepo().GetCloneURL(), MaintainerCanModify: pr.GetMaintainerCanModify()}, nil
}

// PR is an open pull request.
type PR struct {
	Number int
	URL    string
}

// Ensure returns the open pull request of branch head into base, opening
// it when there is none; an open one gets title and body again.
func (c *Client) Ensure(ctx context.Context, head, base, title, body string) (PR, error) {
	open, _, err := c.prs.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{
		State: "open", Head: c.owner + ":" + head, Base: base})
	if err != nil {
		return PR{}, fmt.Errorf("list the pull requests of %s: %w", head, err)
	}
	if len(open) > 0 {
		pr, _, err := c.prs.Edit(ctx, c.owner, c.repo, open[0].GetNumber(), &gh.PullRequest{Title: &title, Body: &body})
		if err != nil {
			return PR{}, fmt.Errorf("update pull request #%d: %w", open[0].GetNumber(), err)
		}
		return PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL()}, nil
	}
	pr, _, err := c.prs.Create(ctx, c.owner, c.repo, &gh.NewPullRequest{Title: &title, Body: &body, Head: &head, Base: &base})
	if err != nil {
		return PR{}, fmt.Errorf("open a pull request for %s into %s: %w", head, base, err)
	}
	return PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL()}, nil
}

// Dispatch starts workflow (a file name such as ci.yml, or an id) on ref
// with the workflow_dispatch API: the repository's CI on a branch that
// ralph-ci pushed with the job's token, which starts no workflow itself.
// The token needs `actions: write`.
func (c *Client) Dispatch(ctx context.Context, workflow, ref string) error {
	_, err := c.dispatch.CreateWorkflowDispatchEventByFileName(ctx, c.owner, c.repo, workflow, gh.CreateWorkflowDispatchEventRequest{Ref: ref})
	if err != nil {
		return fmt.Errorf("start workflow %s on %s (workflow_dispatch; the job needs actions: write, the workflow an on: workflow_dispatch trigger): %w", workflow, ref, err)
	}
	return nil
}

// CommitMessage reads the message of commit sha.
func (c *Client) CommitMessage(ctx context.Context, sha string) (string, error) {
	rc, _, err := c.commits.GetCommit(ctx, c.owner, c.repo, sha, nil)
	if err != nil {
		return "", fmt.Errorf("read commit %.7s: %w", sha, err)
	}
	return rc.GetCommit().GetMessage(), nil
}

// CanWrite tells whether login may write to the repository (the
// collaborator permission API: write, maintain or admin); not a
// collaborator (404) is no.
func (c *Client) CanWrite(ctx context.Context, login string) (bool, error) {
	p, resp, err := c.collab.GetPermissionLevel(ctx, c.owner, c.repo, login)
	if err != nil {
		if resp != nil && resp.StatusCode == 404 {
			return false, nil
		}
		return false, fmt.Errorf("the permission of @%s: %w", login, err)
	}
	switch p.GetPermission() {
	case "admin", "maintain", "write":
		return true, nil
	}
	return false, nil
}
