package gate

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// A checkpoint comment's marker carries its record across workflow runs,
// but anyone with write access to the repository may edit a comment, and
// anyone may post one: the marker is a cache, never the authority. An
// approval or a skip read from a marker counts only when the answer it
// rests on (Record.DecidedID, a reply or a reaction) is read again from
// the channel's own record and passes the rules: it exists, it is on this
// checkpoint, its author is the one the record names and may approve (per
// the base's config), and it says what the record says. A record that
// fails is forged: its decision is dropped (the checkpoint waits again)
// and a warning names the comment.

// Confirmer is a channel whose answers can be read again by id. A channel
// that is not one (the terminal) holds its records itself.
type Confirmer interface {
	// Confirm reads the answer rec's decision rests on and says why it
	// does not support that decision ("" when it does). tg is the
	// checkpoint (its spec, slice id, first line and comment), which a
	// reply may quote or name.
	Confirm(ctx context.Context, tg tiers.Target, rec tiers.Record) (why string, err error)
}

// Decided tells whether rec carries a decision that lets a spec through
// (an approval or a skip), which must be confirmed.
func Decided(rec tiers.Record) bool {
	return rec.Status == tiers.StatusApproved || rec.Status == tiers.StatusSkipped
}

// confirm drops the decision of a record read from a marker when the
// channel does not confirm it, and tells whether it did so (the comment
// is then published again with the record as it stands).
func confirm(ctx context.Context, ch Channel, sp plan.Spec, c Comment, rec *tiers.Record, log zerolog.Logger) (dropped bool, err error) {
	spec := sp.Path
	cf, ok := ch.(Confirmer)
	if !ok || !Decided(*rec) {
		return false, nil
	}
	why := "the record names no answer it rests on"
	if rec.DecidedID != 0 {
		shown := *rec
		if rec.Status == tiers.StatusSkipped { // decided on the escalation
			shown.Status = tiers.StatusEscalated
		}
		tg := tiers.Target{Spec: spec, ID: sp.ID, Header: header(sp, shown), CommentID: c.ID}
		if why, err = cf.Confirm(ctx, tg, *rec); err != nil {
			return false, fmt.Errorf("confirm the decision on checkpoint comment %d of %s: %w", c.ID, spec, err)
		}
	}
	if why == "" {
		return false, nil
	}
	log.Warn().Str("spec", spec).Int64("comment", c.ID).Str("claims", string(rec.Status)).Str("decided_by", rec.DecidedBy).
		Int64("answer", rec.DecidedID).Str("reason", why).
		Msgf("forged checkpoint marker in comment %d: it claims %s by @%s, which GitHub's record does not confirm; the decision is dropped and the checkpoint waits for an answer", c.ID, rec.Status, rec.DecidedBy)
	rec.Status, rec.DecidedBy, rec.DecidedID, rec.DecidedKind, rec.Skip = tiers.StatusPending, "", 0, "", ""
	return true, nil
}
