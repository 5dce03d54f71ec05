package prchannel

import (
	"context"
	"fmt"
	"slices"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

var _ gate.Ledger = (*Client)(nil)

// MaxLedgerCommits bounds the commits of the pull request whose statuses
// Recorded reads, newest first: the walk stops at the first commit that
// has a ralph-ci status of the spec (usually the head itself), so a run
// reads at most this many status listings per pull request (they are
// shared by its specs), whatever the length of the pull request.
const MaxLedgerCommits = 100

// Recorded implements gate.Ledger: the newest commit status of context
// ralph-ci/<spec> that the token's own login set on the pull request's
// commits, walking them from the head back (at most MaxLedgerCommits),
// else on sha (the commit the record names, which a rewritten history no
// longer lists), whose target is the pull request (ofThisPull). Nobody
// but that login can create such a status, and nobody can edit or delete
// one.
func (c *Client) Recorded(ctx context.Context, spec, sha string) (desc string, at time.Time, found bool, err error) {
	// The head first: it usually has one, and then the commits are not
	// listed at all.
	if desc, at, found, err = c.recordedOn(ctx, spec, c.head); found || err != nil {
		return desc, at, found, err
	}
	commits, err := c.pullCommits(ctx)
	if err != nil {
		return "", at, false, err
	}
	if len(commits) > MaxLedgerCommits {
		commits = commits[:MaxLedgerCommits]
	}
	if sha != "" && !slices.Contains(commits, sha) {
		commits = append(commits, sha)
	}
	for _, commit := range commits {
		if desc, at, found, err = c.recordedOn(ctx, spec, commit); found || err != nil {
			return desc, at, found, err
		}
	}
	return "", at, false, nil
}

// recordedOn is the newest status of ralph-ci's for spec on commit.
func (c *Client) recordedOn(ctx context.Context, spec, commit string) (desc string, at time.Time, found bool, err error) {
	stamps, err := c.stampsOn(ctx, spec, commit)
	if err != nil || len(stamps) == 0 {
		return "", at, false, err
	}
	return stamps[0].Desc, stamps[0].At, true, nil
}

var _ gate.Timeline = (*Client)(nil)

// Stamps implements gate.Timeline: ralph-ci's statuses of spec on this
// pull request (see recordedOn), newest first: sha's, then, unless one of
// them was set at or before until, those of the first of the pull
// request's commits (from the head back, at most MaxLedgerCommits) that
// has one set by then. Listings are shared with Recorded.
func (c *Client) Stamps(ctx context.Context, spec, sha string, until time.Time) ([]gate.Stamp, error) {
	out, err := c.stampsOn(ctx, spec, sha)
	if err != nil || settled(out, until) {
		return out, err
	}
	commits, err := c.pullCommits(ctx)
	if err != nil {
		return nil, err
	}
	for i, commit := range commits {
		if i == MaxLedgerCommits {
			break
		}
		if commit == sha {
			continue
		}
		more, err := c.stampsOn(ctx, spec, commit)
		if err != nil {
			return nil, err
		}
		if out = append(out, more...); settled(more, until) {
			break
		}
	}
	return out, nil
}

// settled tells whether one of stamps was set by until (gate.SetBy).
func settled(stamps []gate.Stamp, until time.Time) bool {
	return slices.ContainsFunc(stamps, func(s gate.Stamp) bool { return gate.SetBy(s, until) })
}

// stampsOn is ralph-ci's statuses of spec on commit, newest first.
func (c *Client) stampsOn(ctx context.Context, spec, commit string) ([]gate.Stamp, error) {
	if commit == "" {
		return nil, nil
	}
	statuses, err := c.statusesOf(ctx, commit)
	if err != nil {
		return nil, err
	}
	var out []gate.Stamp
	for _, st := range statuses {
		if c.ours(st, spec) {
			out = append(out, gate.Stamp{At: st.GetCreatedAt().Time, SHA: commit, Desc: st.GetDescription()})
		}
	}
	return out, nil
}

// ours tells whether st is a status ralph-ci set for spec's checkpoint on
// this pull request: its context, by the token's own login, targeting
// this pull request (ofThisPull).
func (c *Client) ours(st *gh.RepoStatus, spec string) bool {
	return st.GetContext() == StatusPrefix+spec && c.own(st.GetCreator()) && c.ofThisPull(st)
}

// ofThisPull tells whether a status of ralph-ci's records this pull
// request's checkpoint: its target is the pull request's page (one set
// without a target, by an older ralph-ci, is taken as this one's). A
// commit may be on several pull requests (one built on another's branch),
// each with its own count.
func (c *Client) ofThisPull(st *gh.RepoStatus) bool {
	return st.GetTargetURL() == "" || st.GetTargetURL() == c.prURL
}

// pullCommits lists the pull request's commits, newest first, the head
// always among them, once per Read. GitHub lists at most 250, the oldest
// first: on a longer pull request the walk goes from the head to the 250th
// commit and back.
func (c *Client) pullCommits(ctx context.Context) ([]string, error) {
	if c.commits != nil {
		return c.commits, nil
	}
	opts := &gh.ListOptions{PerPage: 100}
	shas := []string{}
	for {
		page, resp, err := c.api.PullRequests.ListCommits(ctx, c.owner, c.repo, c.pr, opts)
		if err != nil {
			return nil, fmt.Errorf("commits of pull request #%d: %w", c.pr, err)
		}
		for _, rc := range page {
			if rc.GetSHA() != "" {
				shas = append(shas, rc.GetSHA())
			}
		}
		next, err := nextPage(resp, opts.Page, fmt.Sprintf("commits of pull request #%d", c.pr))
		if err != nil {
			return nil, err
		}
		if next == 0 {
			break
		}
		opts.Page = next
	}
	slices.Reverse(shas)
	if c.head != "" && (len(shas) == 0 || shas[0] != c.head) {
		shas = append([]string{c.head}, slices.DeleteFunc(shas, func(s string) bool { return s == c.head })...)
	}
	c.commits = shas
	return shas, nil
}

// statusesOf lists the statuses of a commit, newest first (Recorded and
// Stamps share them). They are kept across reads but for the head's
// (see forget): ralph-ci sets statuses on the head it read, so an older
// commit's do not change, and check --wait does not walk the pull
// request again at every poll.
func (c *Client) statusesOf(ctx context.Context, sha string) ([]*gh.RepoStatus, error) {
	if all, ok := c.statuses[sha]; ok {
		return all, nil
	}
	opts := &gh.ListOptions{PerPage: 100}
	all := []*gh.RepoStatus{}
	for {
		page, resp, err := c.api.Statuses.ListStatuses(ctx, c.owner, c.repo, sha, opts)
		if err != nil {
			return nil, fmt.Errorf("statuses of %.12s: %w", sha, err)
		}
		all = append(all, page...)
		next, err := nextPage(resp, opts.Page, "statuses of "+sha)
		if err != nil {
			return nil, err
		}
		if next == 0 {
			break
		}
		opts.Page = next
	}
	c.statuses[sha] = all
	return all, nil
}

// forget drops, at a new read, what may have changed since the last: the
// pull request's commits (a push), and the statuses of the head and of
// the previous head prev (another job, or this one, set one there).
func (c *Client) forget(prev string) {
	c.commits = nil
	delete(c.statuses, c.head)
	delete(c.statuses, prev)
}
