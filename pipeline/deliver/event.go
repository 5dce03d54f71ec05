package deliver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Event is what delivery needs from a GitHub Actions event payload.
type Event struct {
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
}

// Fork tells whether the pull request comes from another repository, which
// the job's token cannot push to.
func (e Event) Fork() bool {
	return e.HeadRepo != "" && e.BaseRepo != "" && !strings.EqualFold(e.HeadRepo, e.BaseRepo)
}

// ParseEvent reads the payload of a pull_request, pull_request_target,
// issue_comment or any other event; file names the payload in errors.
func ParseEvent(file string, payload []byte) (Event, error) {
	type repo struct {
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
		CloneURL      string `json:"clone_url"`
	}
	type end struct {
		Ref  string `json:"ref"`
		SHA  string `json:"sha"`
		Repo *repo  `json:"repo"`
	}
	var p struct {
		PullRequest *struct {
			Number              int  `json:"number"`
			Head                end  `json:"head"`
			Base                end  `json:"base"`
			MaintainerCanModify bool `json:"maintainer_can_modify"`
		} `json:"pull_request"`
		Issue *struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
		Repository *repo `json:"repository"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return Event{}, fmt.Errorf("parse the event payload %s: %w", file, err)
	}
	var ev Event
	if p.Repository != nil {
		ev.DefaultBranch, ev.BaseRepo = p.Repository.DefaultBranch, p.Repository.FullName
	}
	switch {
	case p.PullRequest != nil && p.PullRequest.Number > 0:
		pr := p.PullRequest
		ev.PR, ev.HeadRef, ev.HeadSHA, ev.MaintainerCanModify = pr.Number, pr.Head.Ref, pr.Head.SHA, pr.MaintainerCanModify
		if pr.Head.Repo != nil {
			ev.HeadRepo, ev.HeadCloneURL = pr.Head.Repo.FullName, pr.Head.Repo.CloneURL
		}
		if pr.Base.Repo != nil && pr.Base.Repo.FullName != "" {
			ev.BaseRepo = pr.Base.Repo.FullName
		}
	case p.Issue != nil && len(p.Issue.PullRequest) > 0 && string(p.Issue.PullRequest) != "null" && p.Issue.Number > 0:
		ev.PR = p.Issue.Number
	}
	return ev, nil
}

// LoopCommit tells whether a commit message is one of the loop's own
// commits: its trailers (the last paragraph) name a spec (Ralph-Spec:).
func LoopCommit(message string) bool {
	paras := strings.Split(strings.TrimSpace(strings.ReplaceAll(message, "\r\n", "\n")), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), loopTrailerKey) && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}
