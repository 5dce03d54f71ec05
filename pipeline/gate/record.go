package gate

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// load finds the record of a spec: the checkpoint comment's marker (it
// survives across workflow runs), else state.json. A marker whose record
// cannot be read is LogCorruption: the log is reset, the count of the
// state kept. The marker is a cache: its decision is confirmed with the
// channel (confirm) and its rejection count checked against the channel's
// ledger (audit) before the counter invariants (tiers.Check) apply.
// repaired tells that the record differs from what the comment shows, so
// that it is published again.
func load(ctx context.Context, ch Channel, sp plan.Spec, st *state.State, snap Snapshot, log zerolog.Logger) (rec tiers.Record, repaired, deferred bool, err error) {
	var saved tiers.Record
	if ss := st.Spec(sp.Path); ss != nil && ss.Checkpoint != nil {
		saved = clone(*ss.Checkpoint)
	}
	rec = saved
	c, found := snap.Comments[sp.Path]
	if found {
		repaired = c.Err != nil
		if c.Err != nil {
			log.Warn().Str("spec", sp.Path).Err(c.Err).Int("rejection_count", saved.RejectionCount).
				Msg("LogCorruption: the checkpoint marker is unreadable; the rejection log is reset to [] and the rejection count kept")
			rec.RejectionLog = []tiers.Rejection{}
		} else {
			rec = clone(c.Marker.Record)
		}
		rec.CommentID = c.ID
	} else if snap.PR != 0 && rec.PR == snap.PR {
		rec.CommentID = 0 // deleted on the pull request: post it again
	}
	if found && c.Err == nil {
		dropped, err := confirm(ctx, ch, sp, c, &rec, log)
		if err != nil {
			return rec, false, false, err
		}
		repaired = repaired || dropped
	}
	restored, deferred, err := audit(ctx, ch, sp, snap, &rec, unseenBy(snap, rec), log)
	if err != nil {
		return rec, false, false, err
	}
	repaired = repaired || restored
	if restored {
		recoverLog(&rec, saved)
	}
	for _, w := range tiers.Check(&rec) {
		log.Warn().Str("spec", sp.Path).Msg(w)
		repaired = true
	}
	return rec, repaired, deferred, nil
}

// unseenBy tells whether an answer the record r has not read yet (a reply
// after its cursor, a reaction on its comment after its cursor) was given
// by a time (SetBy: in the same second counts). Replies are not routed
// here: any unseen reply counts, which only defers an audit (see audit).
func unseenBy(snap Snapshot, r tiers.Record) func(time.Time) bool {
	return func(t time.Time) bool {
		for _, a := range snap.Replies {
			if a.ID > r.AfterComment && SetBy(Stamp{At: a.Given}, t) {
				return true
			}
		}
		for _, a := range snap.Reactions[r.CommentID] {
			if r.CommentID != 0 && a.ID > r.AfterReaction && SetBy(Stamp{At: a.Given}, t) {
				return true
			}
		}
		return false
	}
}

// recoverLog gives a record whose count the ledger restored the longer
// rejection log of the state's record of the same pull request, when that
// one is consistent with the restored count: the ledger keeps the count,
// not the feedback, which the next rotations and the escalation show.
func recoverLog(r *tiers.Record, saved tiers.Record) {
	if saved.PR != r.PR || saved.RejectionCount != r.RejectionCount || len(saved.RejectionLog) <= len(r.RejectionLog) {
		return
	}
	if cp := clone(saved); len(tiers.Check(&cp)) == 0 {
		r.RejectionLog = cp.RejectionLog
	}
}

// apply applies one answer and logs what it did.
func apply(spec string, r *tiers.Record, a tiers.Answer, head string, log zerolog.Logger) {
	eff := tiers.Apply(r, a, head)
	ev := log.Info().Str("spec", spec).Str("author", a.Author).Str("kind", a.Kind).Int64("id", a.ID)
	for _, w := range eff.Warnings {
		log.Warn().Str("spec", spec).Msg(w)
	}
	switch {
	case eff.Ignored != "":
		log.Warn().Str("spec", spec).Str("author", a.Author).Str("kind", a.Kind).Int64("id", a.ID).Str("reason", eff.Ignored).Msg("answer ignored")
	case eff.Approved:
		ev.Str("sha", r.SHA).Msg("checkpoint approved")
	case eff.Escalated:
		ev.Int("rejection_count", r.RejectionCount).Msg("checkpoint rejected 3 times: escalated")
	case eff.Rejected:
		ev.Int("rejection_count", r.RejectionCount).Str("classification", r.Route).Msg("checkpoint rejected: the spec goes back to work")
	case eff.Skipped:
		log.Warn().Str("spec", spec).Str("author", a.Author).Msg(tiers.SkipEntry)
	case eff.SentBack:
		ev.Str("route", r.Route).Msg("escalation answered: the rejection counter is reset and the spec goes back to work")
	}
}

// sendBack puts a rejected spec back to work: counter 0/3, and the stage
// its route starts from (the tester for a test gap when enabled, else the
// first stage).
func sendBack(sp plan.Spec, st *state.State, r tiers.Record) {
	stage := ""
	if r.Route == tiers.TestGap || r.Route == tiers.RoutePair {
		for _, stg := range sp.Stages {
			if stg.Name == "tester" {
				stage = stg.Name
			}
		}
	}
	st.SpecOrNew(sp.Path).SendBack(stage, fmt.Sprintf("human checkpoint rejected (%s)", r.Route))
}

// publish shows the record when it changed (or has no comment yet), and
// sets the commit status, the count's ledger. The two writes are not
// atomic, so their order keeps the ledger from ever reading as a forgery:
// a record that raises the count (or keeps it) is shown first, so a
// status that fails leaves the ledger behind, which only raises; one that
// lowers it from before (a genuine reset) is recorded first, so a comment
// that fails leaves the old marker, whose answers are read again.
func publish(ctx context.Context, ch Channel, sp plan.Spec, r *tiers.Record, before tiers.Record, changed bool, log zerolog.Logger) error {
	if r.Status == tiers.StatusNone {
		return nil
	}
	if !changed && r.CommentID != 0 {
		return nil
	}
	status := func() error {
		state, desc := StatusOf(*r)
		if err := ch.Status(ctx, sp.Path, state, desc); err != nil {
			return fmt.Errorf("commit status of %s: %w", sp.Path, err)
		}
		return nil
	}
	lowers := Restore(&tiers.Record{Status: r.Status, RejectionCount: r.RejectionCount}, Entry{Status: before.Status, Count: before.RejectionCount})
	if lowers {
		if err := status(); err != nil {
			return err
		}
	}
	id, err := ch.Publish(ctx, sp.Path, SliceOf(sp), *r)
	if err != nil {
		return fmt.Errorf("publish the checkpoint of %s: %w", sp.Path, err)
	}
	if id != 0 && r.CommentID != id {
		r.CommentID = id
	}
	if !lowers {
		if err := status(); err != nil {
			return err
		}
	}
	log.Debug().Str("spec", sp.Path).Str("status", string(r.Status)).Msg("checkpoint published")
	return nil
}
