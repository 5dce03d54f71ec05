// Package gate runs the verify tier's checkpoints against a channel (a
// pull request, or the terminal of a laptop): it reads the answers given
// since the last look, applies them to each spec's record (tiers), sends
// rejected specs back to work in the state, presents the checkpoint of
// every verify-tier spec that is verified 3/3, and updates the comments
// and commit statuses. `ralph-ci run` calls Sync before scheduling and
// when it finishes, `ralph-ci check` runs Check, the merge gate (with
// --wait, Poll); both end with Result.Code.
//
// The gate also holds the trust decisions, once for every channel: which
// config says who may approve (ApprovalConfig), whose answers count
// (Approvers), and which specs keep a checkpoint on a pull request
// (RaisedTier). A channel only reads what they need. A marker is a cache:
// decisions are confirmed with the channel (confirm.go), the rejection
// count checked against the commit statuses only ralph-ci can write (its
// ledger, ledger.go), and every answer read against those statuses'
// times, never against the marker's read cursor (timeline.go).
//
// In the package graph the gate sits below the engine and the channels
// (github/prchannel implements Channel) and above state and tiers.
package gate

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// Channel is where checkpoints are shown and answered.
type Channel interface {
	// Read returns the pull request, its head commit, the checkpoint
	// comments and the authorized answers.
	Read(ctx context.Context) (Snapshot, error)
	// Publish shows the checkpoint of spec as rec says (creating or
	// editing its one comment) and returns the comment id (0 if none).
	Publish(ctx context.Context, spec string, s tiers.Slice, rec tiers.Record) (int64, error)
	// Status sets the commit status of spec: pending, success or failure.
	Status(ctx context.Context, spec, state, description string) error
}

// Snapshot is what a channel read.
type Snapshot struct {
	PR   int    // 0 outside a pull request
	Head string // the commit approvals are for
	// Comments are the tool's own checkpoint comments, by spec.
	Comments map[string]Comment
	// Replies are authorized reply comments, oldest first.
	Replies []tiers.Answer
	// Reactions are authorized reactions, by the comment they are on.
	Reactions map[int64][]tiers.Answer
	// LastComment is the highest comment id seen.
	LastComment int64
}

// Comment is a checkpoint comment and its marker.
type Comment struct {
	ID     int64
	Marker tiers.Marker
	Err    error // the marker's record could not be read
}

// Result says where the verify-tier checkpoints stand.
type Result struct {
	Passed, Pending, Rework, Escalated []string
	// SentBack lists the specs this call sent back to work.
	SentBack []string
}

// Add files the spec at path under where its record r stands for head:
// passed (approved for head), escalated, back at work, else pending. It
// tells whether it was filed as pending.
func (res *Result) Add(path string, r tiers.Record, head string) (pending bool) {
	switch {
	case r.Passed(head):
		res.Passed = append(res.Passed, path)
	case r.Status == tiers.StatusEscalated:
		res.Escalated = append(res.Escalated, path)
	case r.Status == tiers.StatusRework:
		res.Rework = append(res.Rework, path)
	default:
		res.Pending = append(res.Pending, path)
		return true
	}
	return false
}

// Sync reads the answers, applies them, presents the checkpoints of the
// verify-tier specs verified 3/3, and publishes what changed. st is
// updated in place; the caller saves it.
func Sync(ctx context.Context, ch Channel, specs []plan.Spec, st *state.State, log zerolog.Logger) (Result, error) {
	snap, err := ch.Read(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("read the checkpoint answers: %w", err)
	}
	var res Result
	recs := map[string]*tiers.Record{}
	dirty := map[string]bool{} // records to publish even if no answer changes them
	var targets []tiers.Target
	var audits []plan.Spec // audits deferred until the answers are applied (see audit)
	for _, sp := range specs {
		if sp.Tier != plan.TierVerify {
			continue
		}
		rec, repaired, deferred, err := load(ctx, ch, sp, st, snap, log)
		if err != nil {
			return Result{}, err
		}
		recs[sp.Path] = &rec
		if repaired {
			dirty[sp.Path] = true
		}
		if deferred {
			audits = append(audits, sp)
		}
		if rec.Open() {
			targets = append(targets, tiers.Target{Spec: sp.Path, ID: routeID(sp, specs, log), Header: header(sp, rec), CommentID: rec.CommentID})
		}
	}
	before := map[string]tiers.Record{}
	for k, r := range recs {
		before[k] = clone(*r)
	}
	fit := fitter(ctx, ch, snap)
	if err := applyReplies(snap, targets, recs, fit, log); err != nil {
		return Result{}, err
	}
	if err := applyReactions(snap, recs, fit, log); err != nil {
		return Result{}, err
	}
	for _, sp := range audits {
		// An answer that reset the counter (an escalation answered) is
		// rightly below the ledger's escalation: nothing to restore.
		if r := recs[sp.Path]; r.RejectionCount >= before[sp.Path].RejectionCount {
			restored, _, err := audit(ctx, ch, sp, snap, r, nil, log)
			if err != nil {
				return Result{}, err
			}
			dirty[sp.Path] = dirty[sp.Path] || restored
		}
	}
	for _, sp := range specs {
		r, ok := recs[sp.Path]
		if !ok {
			continue
		}
		if err := settle(ctx, ch, sp, st, snap, r, before[sp.Path], dirty[sp.Path], &res, log); err != nil {
			return res, err
		}
	}
	return res, nil
}

// routeID is the slice id a reply may name sp's checkpoint by: none
// when it spells another spec's path (a pull request may add a spec
// whose id is an existing spec's path, to capture the answers named for
// that spec: a reply is routed by path first, and never by such an id).
func routeID(sp plan.Spec, specs []plan.Spec, log zerolog.Logger) string {
	for _, o := range specs {
		if o.Path != sp.Path && o.Path == sp.ID {
			log.Warn().Str("spec", sp.Path).Str("id", sp.ID).Msgf("the spec's id is the path of another spec (%s): replies are never routed to it by that id", o.Path)
			return ""
		}
	}
	return sp.ID
}

// applyReplies applies each reply, oldest first, to the open checkpoint
// it is for (tiers.Route), skipping replies the records have seen and
// those that do not fit the ledger.
func applyReplies(snap Snapshot, targets []tiers.Target, recs map[string]*tiers.Record, fit fit, log zerolog.Logger) error {
	for _, a := range snap.Replies {
		var open []tiers.Target
		fresh := false
		for _, tg := range targets {
			if r := recs[tg.Spec]; a.ID > r.AfterComment {
				fresh = true
				if r.Open() {
					open = append(open, tg)
				}
			}
		}
		if len(open) == 0 {
			if fresh { // an earlier answer of this read decided it
				log.Warn().Int64("id", a.ID).Str("author", a.Author).Str("kind", a.Kind).Str("reason", "the checkpoint was already answered by an earlier reply").Msg("answer ignored")
			}
			continue
		}
		tg, text, ok := tiers.Route(a.Text, open)
		if !ok {
			log.Warn().Int64("comment", a.ID).Str("author", a.Author).Str("reason", "several checkpoints are open: quote one or start the reply with its spec path and a colon").Msg("answer ignored")
			continue
		}
		a.Text = text
		if ok, err := fit(tg.Spec, *recs[tg.Spec], a, log); !ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		apply(tg.Spec, recs[tg.Spec], a, snap.Head, log)
	}
	return nil
}

// applyReactions applies the reactions on each open checkpoint's comment
// that its record has not seen and that fit the ledger.
func applyReactions(snap Snapshot, recs map[string]*tiers.Record, fit fit, log zerolog.Logger) error {
	for spec, r := range recs {
		for _, a := range snap.Reactions[r.CommentID] {
			if r.CommentID == 0 || a.ID <= r.AfterReaction || !r.Open() {
				continue
			}
			if ok, err := fit(spec, *r, a, log); !ok || err != nil {
				if err != nil {
					return err
				}
				continue
			}
			apply(spec, r, a, snap.Head, log)
		}
	}
	return nil
}

// settle finishes the record r of sp after the answers: it marks what was
// read, sends a new rejection back to work, presents the checkpoint of a
// spec verified 3/3, publishes the record when it differs from before
// (or dirty says the comment shows something else), keeps it in the
// state and adds the spec to res where it stands.
func settle(ctx context.Context, ch Channel, sp plan.Spec, st *state.State, snap Snapshot, r *tiers.Record, before tiers.Record, dirty bool, res *Result, log zerolog.Logger) error {
	for _, a := range snap.Reactions[r.CommentID] {
		r.AfterReaction = max(r.AfterReaction, a.ID)
	}
	r.AfterComment = max(r.AfterComment, snap.LastComment)
	// A rejection this state has not seen yet sends the spec back to
	// work: one read now, or one another job (check on a comment)
	// recorded in the comment while this state still says 3/3.
	if r.Status == tiers.StatusRework && !sp.Removal && !reworkSeen(st.Spec(sp.Path), *r) {
		sendBack(sp, st, *r) // may add the spec's state
		res.SentBack = append(res.SentBack, sp.Path)
	}
	var stale string // the older commit an approval was for
	if r.Status == tiers.StatusApproved && r.SHA != snap.Head {
		stale = r.SHA
	}
	ss := st.Spec(sp.Path)
	if ss.Verified(sp.Hash) || sp.Removal { // a removal has nothing to verify
		*r = tiers.Present(*r, snap.PR, snap.Head)
	}
	if sp.Removal {
		ss = nil // no state: its comment's marker is its record
	}
	if r.Status == tiers.StatusEscalated && len(r.RejectionLog) == 0 {
		log.Warn().Str("spec", sp.Path).Msg(tiers.HistoryUnavailable)
	}
	changed := dirty || !reflect.DeepEqual(*r, before)
	if err := publish(ctx, ch, sp, r, before, changed, log); err != nil {
		return err
	}
	if !sp.Removal && (ss != nil || r.Status != tiers.StatusNone) {
		ss = st.SpecOrNew(sp.Path)
		cp := clone(*r)
		ss.Checkpoint = &cp
	}
	if res.Add(sp.Path, *r, snap.Head) && stale != "" {
		log.Warn().Str("spec", sp.Path).Str("approved_for", stale).Str("head", snap.Head).
			Msgf("the checkpoint of %s was approved for an older commit (%.7s), not for the head %.7s: a push since made it stale; it is asked again for the head once the spec is verified 3/3 there", sp.Path, stale, snap.Head)
	}
	return nil
}

// reworkSeen tells whether the state already sent the spec back for the
// rejection r records (its saved record is that same rework).
func reworkSeen(ss *state.SpecState, r tiers.Record) bool {
	if ss == nil || ss.Checkpoint == nil {
		return false
	}
	c := ss.Checkpoint
	return c.Status == tiers.StatusRework && c.RejectionCount == r.RejectionCount && c.Route == r.Route && c.PR == r.PR
}

func header(sp plan.Spec, r tiers.Record) string {
	if r.Status == tiers.StatusEscalated {
		return "ESCALATION -- " + sp.Title
	}
	return fmt.Sprintf("ALL TESTS PASSING -- Slice %s: %s", sp.ID, sp.Title)
}

// SliceOf is what the checkpoint of sp shows: its completion's
// acceptance criteria and its contracts', wherever the checkpoint is (the
// pull request, the job summary, a laptop).
func SliceOf(sp plan.Spec) tiers.Slice {
	return tiers.Slice{ID: sp.ID, Name: sp.Title, Criteria: slices.Compact(sp.AllAcceptanceCriteria()), Steps: sp.Steps}
}

func clone(r tiers.Record) tiers.Record {
	r.RejectionLog = append([]tiers.Rejection{}, r.RejectionLog...)
	return r
}
