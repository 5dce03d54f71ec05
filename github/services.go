package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// The small interfaces of the GitHub API the callers need; go-github's
// services implement them. A caller takes the one it needs.

// PullRequests reads, lists, opens, edits and merges pull requests, and
// lists a pull request's commits.
type PullRequests interface {
	Get(ctx context.Context, owner, repo string, number int) (*gh.PullRequest, *gh.Response, error)
	List(ctx context.Context, owner, repo string, opts *gh.PullRequestListOptions) ([]*gh.PullRequest, *gh.Response, error)
	ListCommits(ctx context.Context, owner, repo string, number int, opts *gh.ListOptions) ([]*gh.RepositoryCommit, *gh.Response, error)
	Create(ctx context.Context, owner, repo string, pull *gh.NewPullRequest) (*gh.PullRequest, *gh.Response, error)
	Edit(ctx context.Context, owner, repo string, number int, pull *gh.PullRequest) (*gh.PullRequest, *gh.Response, error)
	Merge(ctx context.Context, owner, repo string, number int, message string, opts *gh.PullRequestOptions) (*gh.PullRequestMergeResult, *gh.Response, error)
}

// Statuses sets and reads commit statuses (the checkpoints' and the
// merge gate's).
type Statuses interface {
	CreateStatus(ctx context.Context, owner, repo, ref string, status *gh.RepoStatus) (*gh.RepoStatus, *gh.Response, error)
	ListStatuses(ctx context.Context, owner, repo, ref string, opts *gh.ListOptions) ([]*gh.RepoStatus, *gh.Response, error)
	GetCombinedStatus(ctx context.Context, owner, repo, ref string, opts *gh.ListOptions) (*gh.CombinedStatus, *gh.Response, error)
}

// Contents reads a file of the repository at a commit.
type Contents interface {
	GetContents(ctx context.Context, owner, repo, path string, opts *gh.RepositoryContentGetOptions) (*gh.RepositoryContent, []*gh.RepositoryContent, *gh.Response, error)
}

// Comments lists, reads, posts, edits and deletes the comments of an
// issue or a pull request (a checkpoint, a progress comment).
type Comments interface {
	ListComments(ctx context.Context, owner, repo string, number int, opts *gh.IssueListCommentsOptions) ([]*gh.IssueComment, *gh.Response, error)
	GetComment(ctx context.Context, owner, repo string, id int64) (*gh.IssueComment, *gh.Response, error)
	CreateComment(ctx context.Context, owner, repo string, number int, comment *gh.IssueComment) (*gh.IssueComment, *gh.Response, error)
	EditComment(ctx context.Context, owner, repo string, id int64, comment *gh.IssueComment) (*gh.IssueComment, *gh.Response, error)
	DeleteComment(ctx context.Context, owner, repo string, id int64) (*gh.Response, error)
}

// Commits reads a commit (its message: the loop's trailers) and compares
// two (whether a merge group contains a commit).
type Commits interface {
	GetCommit(ctx context.Context, owner, repo, sha string, opts *gh.ListOptions) (*gh.RepositoryCommit, *gh.Response, error)
	CompareCommits(ctx context.Context, owner, repo, base, head string, opts *gh.ListOptions) (*gh.CommitsComparison, *gh.Response, error)
}

// Collaborators reads a person's permission on the repository.
type Collaborators interface {
	GetPermissionLevel(ctx context.Context, owner, repo, user string) (*gh.RepositoryPermissionLevel, *gh.Response, error)
}

// Users reads a user ("" for the token's own).
type Users interface {
	Get(ctx context.Context, user string) (*gh.User, *gh.Response, error)
}

// Dispatch starts a workflow by its file name (workflow_dispatch).
type Dispatch interface {
	CreateWorkflowDispatchEventByFileName(ctx context.Context, owner, repo, workflow string, event gh.CreateWorkflowDispatchEventRequest) (*gh.Response, error)
}

// Requests sends a request go-github has no method for, or reads fields
// its types lack (a reaction's time, a collaborator's role name).
type Requests interface {
	NewRequest(method, urlStr string, body interface{}, opts ...gh.RequestOption) (*http.Request, error)
	Do(ctx context.Context, req *http.Request, v interface{}) (*gh.Response, error)
}

var (
	_ Requests      = (*gh.Client)(nil)
	_ PullRequests  = (*gh.PullRequestsService)(nil)
	_ Statuses      = (*gh.RepositoriesService)(nil)
	_ Contents      = (*gh.RepositoriesService)(nil)
	_ Comments      = (*gh.IssuesService)(nil)
	_ Dispatch      = (*gh.ActionsService)(nil)
	_ Commits       = (*gh.RepositoriesService)(nil)
	_ Collaborators = (*gh.RepositoriesService)(nil)
	_ Users         = (*gh.UsersService)(nil)
)

// Repo is one repository and the parts of the API its callers use.
type Repo struct {
	Owner, Name   string
	PullRequests  PullRequests
	Statuses      Statuses
	Contents      Contents
	Comments      Comments
	Dispatch      Dispatch
	Commits       Commits
	Collaborators Collaborators
	Users         Users
	Requests      Requests
}

// RepoOf is the repository ("owner/name", GITHUB_REPOSITORY) through c.
func RepoOf(c *gh.Client, repository string) (Repo, error) {
	owner, name, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || name == "" {
		return Repo{}, fmt.Errorf("GITHUB_REPOSITORY %q: want owner/name", repository)
	}
	return Repo{Owner: owner, Name: name, PullRequests: c.PullRequests, Statuses: c.Repositories,
		Contents: c.Repositories, Comments: c.Issues, Dispatch: c.Actions, Commits: c.Repositories, Collaborators: c.Repositories, Users: c.Users, Requests: c}, nil
}
