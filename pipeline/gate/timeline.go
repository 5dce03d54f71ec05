package gate

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// An answer is read against the ledger, not against the marker's read
// cursor (Record.AfterComment, AfterReaction): anyone with write access may
// lower the cursor in ralph-ci's comment, so that an answer that was
// rightly passed over (a "yes" given while the checkpoint was back at
// work) is read again as new. ralph-ci's own statuses say what the
// checkpoint was at every moment, and nobody else can write them: an
// answer counts only when the newest status set at or before it was given
// shows the state it answers (Fits). This holds both when an answer is
// applied (Sync) and when a marker's decision is confirmed (a Confirmer
// calls Fits with the answer it read again).

// Stamp is one status of the ledger: when it was set, on which commit, and
// its description (StatusOf).
type Stamp struct {
	At   time.Time
	SHA  string
	Desc string
}

// Timeline is a ledger whose statuses can be listed with their times.
type Timeline interface {
	// Stamps returns ralph-ci's statuses of spec on this pull request,
	// newest first: those of sha (the commit the checkpoint was presented
	// for) first, then, when none of them was set at or before until,
	// those of the pull request's other commits from the head back. Empty
	// when there is none at all (a token that may not write statuses).
	Stamps(ctx context.Context, spec, sha string, until time.Time) ([]Stamp, error)
}

// SetBy tells whether s was set at or before t. GitHub keeps times to the
// second: a status set in the same second as an answer counts as set
// before it.
func SetBy(s Stamp, t time.Time) bool {
	return !s.At.Truncate(time.Second).After(t.Truncate(time.Second))
}

// Fits says why an answer given at given does not answer the checkpoint
// ("" when it does), by stamps (Timeline.Stamps, newest first). asked is
// the state the answer answers: pending for an approval or a rejection of
// the checkpoint presented for the commit sha, escalated for an escalation
// answer (option 1, 2 or 3). It must be what the newest stamp set by
// given (SetBy) shows, and for a checkpoint answer that stamp must be on
// sha. With no stamps at all there is no ledger to read (the token may
// not write statuses): every answer fits, as the marker's cursor says.
func Fits(stamps []Stamp, sha string, given time.Time, asked tiers.Status) string {
	if len(stamps) == 0 {
		return ""
	}
	var then *Stamp
	for i := range stamps {
		if SetBy(stamps[i], given) {
			then = &stamps[i]
			break
		}
	}
	at := given.UTC().Format(time.RFC3339)
	if asked == tiers.StatusPending && (then == nil || then.SHA != sha) {
		return fmt.Sprintf("given at %s, before the checkpoint was presented for the head %.7s: it answered an older head", at, sha)
	}
	if then == nil {
		return fmt.Sprintf("given at %s, before ralph-ci recorded any state of the checkpoint", at)
	}
	e, ok := ParseStatus(then.Desc)
	if ok && e.Status == asked {
		return ""
	}
	said := fmt.Sprintf("ralph-ci's status then, set at %s, says %q", then.At.UTC().Format(time.RFC3339), then.Desc)
	switch {
	case !ok:
		return fmt.Sprintf("given at %s, when %s, which is not one it writes", at, said)
	case e.Status == tiers.StatusRework:
		return fmt.Sprintf("given at %s, while the checkpoint was back at work (%s)", at, said)
	case asked == tiers.StatusEscalated && e.Status == tiers.StatusPending:
		return fmt.Sprintf("given at %s, before the checkpoint was escalated (%s)", at, said)
	case e.Status == tiers.StatusEscalated:
		return fmt.Sprintf("given at %s, while the checkpoint was escalated, not waiting for an approval (%s)", at, said)
	}
	return fmt.Sprintf("given at %s, after the checkpoint was decided (%s)", at, said)
}

// fit tells whether answer a may be applied to the open record r of spec
// by the ledger (Fits), and logs why not.
type fit func(spec string, r tiers.Record, a tiers.Answer, log zerolog.Logger) (bool, error)

// fitter is the ledger check of ch's answers: every answer fits on a
// channel that keeps no timeline (the terminal) or outside a pull request.
func fitter(ctx context.Context, ch Channel, snap Snapshot) fit {
	tl, ok := ch.(Timeline)
	return func(spec string, r tiers.Record, a tiers.Answer, log zerolog.Logger) (bool, error) {
		if !ok || snap.PR == 0 {
			return true, nil
		}
		stamps, err := tl.Stamps(ctx, spec, r.SHA, a.Given)
		if err != nil {
			return false, fmt.Errorf("read ralph-ci's commit statuses of %s: %w", spec, err)
		}
		why := Fits(stamps, r.SHA, a.Given, r.Status)
		if why != "" {
			log.Warn().Str("spec", spec).Str("author", a.Author).Str("kind", a.Kind).Int64("id", a.ID).Str("reason", why).
				Msgf("answer ignored: ralph-ci's own commit statuses say it does not answer the checkpoint as it stands (%s)", r.Status)
		}
		return why == "", nil
	}
}
