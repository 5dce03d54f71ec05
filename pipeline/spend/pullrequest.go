package spend

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The pull request's spend travels in its state, which anyone who may
// push can delete or roll back: a state ref deleted made the next run
// start the pull request at $0. So, with budgets.per_pull_request, after
// each rotation ralph-ci also records the pull request's spend with its
// own commit status (ProofContext, "spent $<usd> <tokens>t") on the
// branch's anchor, a commit anyone can compute from the state ref's name
// (PullRequestRecord.Anchor) and that ralph-ci pushes to
// refs/ralph-ci/anchor/... when it is absent. At start the pull request's
// spend is the more of its state's and the most those statuses record
// (Floor): deleting, rolling back or unbinding the state resets nothing.
// A pull request with no such status is a new one: nothing spent.

// PullRequestRecord is the record of one branch's spend in ralph-ci's own
// statuses.
type PullRequestRecord struct {
	Git    Git
	Remote string // "origin"
	// StateRef is the branch's state ref (refs/ralph-ci/state/<branch>).
	StateRef string
	Proof    Proof

	anchor string
}

// AnchorRef is where the anchor is kept on the remote.
func (r *PullRequestRecord) AnchorRef() string {
	return "refs/ralph-ci/anchor/" + strings.TrimPrefix(r.StateRef, "refs/ralph-ci/")
}

// Anchor makes, in the local object store, the branch's anchor: a commit
// of the empty tree by ralph-ci, dated 1970, whose message names the
// state ref: the same commit in every job.
func (r *PullRequestRecord) Anchor(ctx context.Context) (string, error) {
	if r.anchor != "" {
		return r.anchor, nil
	}
	tree, err := r.Git.RunInput(ctx, []byte{}, "mktree")
	if err != nil {
		return "", err
	}
	who := "ralph-ci <ralph-ci@users.noreply.github.com> 0 +0000"
	commit := fmt.Sprintf("tree %s\nauthor %s\ncommitter %s\n\nralph-ci: spend of %s\n", strings.TrimSpace(string(tree)), who, who, r.StateRef)
	id, err := r.Git.RunInput(ctx, []byte(commit), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	r.anchor = strings.TrimSpace(string(id))
	return r.anchor, nil
}

// Floor pushes the anchor when the remote lacks it and returns the most
// spent that ralph-ci's own statuses on it record (nothing when none).
func (r *PullRequestRecord) Floor(ctx context.Context) (Amount, error) {
	anchor, err := r.Anchor(ctx)
	if err != nil {
		return Amount{}, err
	}
	if _, err := r.Git.Run(ctx, "push", "--quiet", "--force-with-lease="+r.AnchorRef()+":", r.Remote, anchor+":"+r.AnchorRef()); err != nil && !stale(err) {
		return Amount{}, fmt.Errorf("push the anchor of the pull request's spend to %s: %w", r.AnchorRef(), err)
	}
	statuses, err := r.Proof.OwnStatuses(ctx, anchor, ProofContext)
	if err != nil {
		return Amount{}, fmt.Errorf("read ralph-ci's own %s statuses on %.12s: %w", ProofContext, anchor, err)
	}
	return highest(statuses), nil
}

// Record records that the pull request spent a.
func (r *PullRequestRecord) Record(ctx context.Context, a Amount) error {
	anchor, err := r.Anchor(ctx)
	if err != nil {
		return err
	}
	return r.Proof.SetStatus(ctx, anchor, ProofContext, spentText(a))
}

// spentText is the description of a status recording a pull request's
// spend.
func spentText(a Amount) string { return fmt.Sprintf("spent $%.6f %dt", a.USD, a.Tokens) }

// highest is the most spent the statuses record, in each measure.
func highest(statuses []string) Amount {
	var high Amount
	for _, s := range statuses {
		f := strings.Fields(s)
		if len(f) != 3 || f[0] != "spent" || !strings.HasPrefix(f[1], "$") || !strings.HasSuffix(f[2], "t") {
			continue
		}
		usd, err1 := strconv.ParseFloat(f[1][1:], 64)
		tokens, err2 := strconv.ParseInt(strings.TrimSuffix(f[2], "t"), 10, 64)
		if err1 == nil && err2 == nil {
			high = Amount{USD: max(high.USD, usd), Tokens: max(high.Tokens, tokens)}
		}
	}
	return high
}

// Above is the pull request's spend at start: its state's (spent), or
// what ralph-ci's own statuses record (floor) where that is more, in each
// measure; raised tells that the floor won (the state was deleted, rolled
// back or not bound). A negative spend in the state counts as the floor.
func Above(spent, floor Amount) (Amount, bool) {
	out := spent
	if out.USD < floor.USD || out.USD < 0 {
		out.USD = floor.USD
	}
	if out.Tokens < floor.Tokens || out.Tokens < 0 {
		out.Tokens = floor.Tokens
	}
	out.Unpriced = max(out.Unpriced, 0)
	return out, out != spent
}
