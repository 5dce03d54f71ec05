package prchannel

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/internal/ghevent"
	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

// MergeGroup is a merge_group event: the temporary commit a merge queue
// tests, and the pull request its branch is named after.
type MergeGroup struct {
	ghevent.MergeGroup
	// PR is the pull request of head_ref (gh-readonly-queue/<base>/pr-N-<sha>), 0 if none.
	PR int
}

var reQueueRef = lazyregexp.New(`/pr-([0-9]+)-[0-9a-f]+$`)

// MergeGroupOf is the merge group of ev, the job's event read from
// path; ok is false on another event.
func MergeGroupOf(ev ghevent.Event, path string) (MergeGroup, bool, error) {
	if ev.Name != "merge_group" {
		return MergeGroup{}, false, nil
	}
	if !reSHA.MatchString(ev.MergeGroup.HeadSHA) {
		return MergeGroup{}, false, fmt.Errorf("the merge_group event %s has no head_sha", path)
	}
	mg := MergeGroup{MergeGroup: ev.MergeGroup}
	if m := reQueueRef.FindStringSubmatch(mg.HeadRef); m != nil {
		mg.PR, _ = strconv.Atoi(m[1])
	}
	return mg, true, nil
}

var reSHA = lazyregexp.New(`^[0-9a-f]{40}$`)

// Contains tells whether commit group contains commit sha (sha is group
// or one of its ancestors), from the compare API.
func (c *Client) Contains(ctx context.Context, sha, group string) (bool, error) {
	if sha == group {
		return true, nil
	}
	cmp, _, err := c.api.Commits.CompareCommits(ctx, c.owner, c.repo, sha, group, nil)
	if err != nil {
		return false, fmt.Errorf("compare %.7s with %.7s: %w", sha, group, err)
	}
	return cmp.GetStatus() == "ahead" || cmp.GetStatus() == "identical", nil
}

// Client is the client the sweep's pull requests share (for the
// repository-wide reads of a merge group).
func (s *Sweeper) Client() *Client { return s.c }

// CommitsOf lists the commits of pull request pr, newest first, at most
// max of them.
func (c *Client) CommitsOf(ctx context.Context, pr, max int) ([]string, error) {
	opts := &gh.ListOptions{PerPage: 100}
	var shas []string
	for range maxPages {
		page, resp, err := c.api.PullRequests.ListCommits(ctx, c.owner, c.repo, pr, opts)
		if err != nil {
			return nil, fmt.Errorf("commits of pull request #%d: %w", pr, err)
		}
		for _, rc := range page {
			shas = append(shas, rc.GetSHA())
		}
		next, err := nextPage(resp, opts.Page, fmt.Sprintf("commits of pull request #%d", pr))
		if next == 0 || err != nil {
			slices.Reverse(shas)
			return shas[:min(max, len(shas))], err
		}
		opts.Page = next
	}
	slices.Reverse(shas)
	return shas[:min(max, len(shas))], nil
}

// maxQueueCommits bounds the older commits of a pull request looked for
// in a merge group (one compare each).
const maxQueueCommits = 20

// OlderIn tells whether the group holds an older commit of pr (its head
// moved since the group was made).
func (c *Client) OlderIn(ctx context.Context, pr gate.Pull, group string) (bool, error) {
	commits, err := c.CommitsOf(ctx, pr.Number, maxQueueCommits)
	if err != nil {
		return false, err
	}
	for _, sha := range commits {
		if sha == pr.Head {
			continue
		}
		if in, err := c.Contains(ctx, sha, group); err != nil || in {
			return in, err
		}
	}
	return false, nil
}
