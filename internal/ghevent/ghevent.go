// Package ghevent reads the event a GitHub Actions job runs on
// (GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH) into
// go-github's event types (github.ParseWebHook) and gives ralph-ci the
// few fields it uses. The payload is outside input: it is read bounded
// (safefile.EventLimit), and a broken one is an error naming the file,
// never a panic. It builds no API client (that is package github's).
package ghevent

import (
	"encoding/json"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Event is what ralph-ci needs from an Actions event.
type Event struct {
	// Name is the event's name (GITHUB_EVENT_NAME), Action its action
	// (synchronize, labeled, created…), empty for events without one.
	Name, Action string
	// PR is the pull request's number, 0 off a pull request.
	PR int
	// HeadRef and HeadSHA are the pull request's head branch and commit;
	// an issue_comment payload has neither (the caller asks the API).
	HeadRef, HeadSHA string
	// HeadRepo and BaseRepo are the owner/name of the head and base
	// repositories; they differ for a pull request from a fork.
	HeadRepo, BaseRepo string
	// DefaultBranch is the repository's default branch.
	DefaultBranch string
	// HeadCloneURL is the head repository's clone URL, and
	// MaintainerCanModify whether its owner lets the base repository's
	// maintainers push to the pull request's branch (a fork's).
	HeadCloneURL        string
	MaintainerCanModify bool
	// Sender is the login of the person who caused the event.
	Sender string
	// Comment and Commenter are an issue_comment's body and author.
	Comment, Commenter string
	// Label is the label a labeled event added.
	Label string
	// MergeGroup is a merge_group event's group, empty on another event.
	MergeGroup MergeGroup
}

// MergeGroup is the temporary commit a merge queue tests: its head
// commit and branch (gh-readonly-queue/<base>/pr-N-<sha>) and its base.
type MergeGroup struct {
	HeadSHA, HeadRef, BaseSHA string
}

// Fork tells whether the pull request comes from another repository, which
// the job's token cannot push to.
func (e Event) Fork() bool {
	return e.HeadRepo != "" && e.BaseRepo != "" && !strings.EqualFold(e.HeadRepo, e.BaseRepo)
}

// Read reads the event named name from the payload file at path; no path
// is no event (a run outside Actions): a zero Event.
func Read(name, path string) (Event, error) {
	if path == "" {
		return Event{}, nil
	}
	if name == "" {
		return Event{}, fmt.Errorf("the event payload %s (GITHUB_EVENT_PATH) has no name: set GITHUB_EVENT_NAME (pull_request, issue_comment…)", path)
	}
	raw, err := safefile.Read(path, safefile.EventLimit)
	if err != nil {
		return Event{}, fmt.Errorf("read the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	return Parse(name, path, raw)
}

// Parse reads payload, the payload of the event named name, with
// go-github's type for it; file names the payload in errors. An event
// go-github has no type for (schedule) gives the repository and sender
// every event payload carries.
func Parse(name, file string, payload []byte) (Event, error) {
	if gh.EventForType(name) == nil {
		var common struct { // GitHub's documented keys of every event
			Repo   *gh.Repository `json:"repository"`
			Sender *gh.User       `json:"sender"`
		}
		if err := json.Unmarshal(payload, &common); err != nil {
			return Event{}, fmt.Errorf("parse the event payload %s (a %s event): %w", file, name, err)
		}
		return Event{Name: name, Sender: common.Sender.GetLogin(), BaseRepo: common.Repo.GetFullName(), DefaultBranch: common.Repo.GetDefaultBranch()}, nil
	}
	v, err := gh.ParseWebHook(name, payload)
	if err != nil {
		return Event{}, fmt.Errorf("parse the event payload %s (a %s event): %w", file, name, err)
	}
	return fields(name, v), nil
}

// fields takes ralph-ci's fields from a go-github event.
func fields(name string, v any) Event {
	ev := Event{Name: name}
	if x, ok := v.(interface{ GetAction() string }); ok {
		ev.Action = x.GetAction()
	}
	if x, ok := v.(interface{ GetSender() *gh.User }); ok {
		ev.Sender = x.GetSender().GetLogin()
	}
	switch x := v.(type) {
	case interface{ GetRepo() *gh.Repository }:
		ev.BaseRepo, ev.DefaultBranch = x.GetRepo().GetFullName(), x.GetRepo().GetDefaultBranch()
	case *gh.PushEvent:
		ev.BaseRepo, ev.DefaultBranch = x.GetRepo().GetFullName(), x.GetRepo().GetDefaultBranch()
	}
	if x, ok := v.(interface{ GetLabel() *gh.Label }); ok {
		ev.Label = x.GetLabel().GetName()
	}
	if x, ok := v.(*gh.IssueCommentEvent); ok {
		ev.Comment, ev.Commenter = x.GetComment().GetBody(), x.GetComment().GetUser().GetLogin()
	}
	if x, ok := v.(*gh.MergeGroupEvent); ok {
		g := x.GetMergeGroup()
		ev.MergeGroup = MergeGroup{HeadSHA: g.GetHeadSHA(), HeadRef: g.GetHeadRef(), BaseSHA: g.GetBaseSHA()}
	}
	var pr *gh.PullRequest
	if x, ok := v.(interface{ GetPullRequest() *gh.PullRequest }); ok {
		pr = x.GetPullRequest()
	}
	var issue *gh.Issue
	if x, ok := v.(interface{ GetIssue() *gh.Issue }); ok {
		issue = x.GetIssue()
	}
	switch {
	case pr.GetNumber() > 0:
		ev.PR, ev.HeadRef, ev.HeadSHA = pr.GetNumber(), pr.GetHead().GetRef(), pr.GetHead().GetSHA()
		ev.MaintainerCanModify = pr.GetMaintainerCanModify()
		ev.HeadRepo, ev.HeadCloneURL = pr.GetHead().GetRepo().GetFullName(), pr.GetHead().GetRepo().GetCloneURL()
		if base := pr.GetBase().GetRepo().GetFullName(); base != "" {
			ev.BaseRepo = base
		}
	case issue != nil && issue.IsPullRequest() && issue.GetNumber() > 0: // IsPullRequest's receiver is a value
		ev.PR = issue.GetNumber()
	}
	return ev
}
