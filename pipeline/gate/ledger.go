package gate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The rejection count must outlive whoever can edit or delete comments:
// anyone with write access to the repository may edit or delete any
// comment, ralph-ci's and the human's replies alike, so neither is a
// ledger. What only ralph-ci's own login can write, and nobody can edit or
// delete, is a commit status it created: every time the gate publishes a
// record it sets ralph-ci/<spec> on the head with a description that
// carries the count (StatusOf). At load, after the marker is read and its
// decisions confirmed, the newest such status (Ledger) is read back
// (ParseStatus): a record that shows fewer rejections than it, or that
// dropped the escalation it records, was edited (or lost) and is restored
// (Restore), with a warning naming the comment. A genuine reset
// (escalation option 1 or 2) is itself recorded ("rejected (0/3): back to
// work"), so it stays a reset; the ledger only ever raises a count.

// Ledger is a channel that keeps the descriptions of the statuses the gate
// set, where nobody but ralph-ci can write them.
type Ledger interface {
	// Recorded returns the description of the newest status the gate set
	// for spec on the pull request (found false when there is none), and
	// when it was set. sha is the commit the record names, looked at when
	// the pull request's own commits carry none (its history rewritten).
	Recorded(ctx context.Context, spec, sha string) (desc string, at time.Time, found bool, err error)
}

// Entry is what a status description records.
type Entry struct {
	Status tiers.Status
	// Count is the rejection count (a skip follows an escalation: at
	// least tiers.EscalationThreshold).
	Count int
	By    string // who approved
}

// StatusOf is the commit status (state and description) that shows r.
// ParseStatus is its inverse.
func StatusOf(r tiers.Record) (state, desc string) {
	n := r.RejectionCount
	switch r.Status {
	case tiers.StatusApproved:
		desc = "approved by @" + r.DecidedBy
		if n > 0 {
			desc += fmt.Sprintf(" (rejected %d/%d before)", n, tiers.EscalationThreshold)
		}
		return "success", desc
	case tiers.StatusSkipped:
		return "success", "verification skipped by the user"
	case tiers.StatusEscalated:
		return "failure", fmt.Sprintf("rejected %d times: escalated", n)
	case tiers.StatusRework:
		return "pending", fmt.Sprintf("rejected (%d/%d): back to work", n, tiers.EscalationThreshold)
	}
	desc = "awaiting the human checkpoint"
	if n > 0 {
		desc += fmt.Sprintf(" (rejected %d/%d so far)", n, tiers.EscalationThreshold)
	}
	return "pending", desc
}

var statusTexts = []struct {
	re     *lazyregexp.Regexp
	status tiers.Status
}{
	{lazyregexp.New(`^awaiting the human checkpoint()$`), tiers.StatusPending},
	{lazyregexp.New(`^awaiting the human checkpoint \(rejected (\d+)/3 so far\)$`), tiers.StatusPending},
	{lazyregexp.New(`^approved by @(\S+)()$`), tiers.StatusApproved},
	{lazyregexp.New(`^approved by @(\S+) \(rejected (\d+)/3 before\)$`), tiers.StatusApproved},
	{lazyregexp.New(`^verification skipped by the user()$`), tiers.StatusSkipped},
	{lazyregexp.New(`^rejected (\d+) times: escalated$`), tiers.StatusEscalated},
	{lazyregexp.New(`^rejected \((\d+)/3\): back to work$`), tiers.StatusRework},
}

// ParseStatus reads a description StatusOf wrote; ok is false for any
// other text.
func ParseStatus(desc string) (e Entry, ok bool) {
	for _, t := range statusTexts {
		m := t.re.FindStringSubmatch(desc)
		if m == nil {
			continue
		}
		e.Status = t.status
		if t.status == tiers.StatusApproved {
			e.By, m = m[1], m[1:]
		}
		if m[1] != "" {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return Entry{}, false
			}
			e.Count = n
		}
		if e.Status == tiers.StatusSkipped {
			e.Count = tiers.EscalationThreshold
		}
		return e, true
	}
	return Entry{}, false
}

// Restore raises r to what the ledger recorded when r lowers it: fewer
// rejections than e, or no escalation where e records one (a confirmed
// skip keeps its place). The count is restored and, when it reaches
// tiers.EscalationThreshold, the record escalates (what CounterOverflow
// does above it), dropping any decision. lowered tells whether r changed.
func Restore(r *tiers.Record, e Entry) (lowered bool) {
	out := func(s tiers.Status) bool { return s == tiers.StatusEscalated || s == tiers.StatusSkipped }
	if e.Count <= r.RejectionCount && !(e.Status == tiers.StatusEscalated && !out(r.Status)) {
		return false
	}
	r.RejectionCount = max(r.RejectionCount, e.Count)
	if r.RejectionCount >= tiers.EscalationThreshold && !out(r.Status) {
		r.Status, r.Reprompt = tiers.StatusEscalated, ""
		r.DecidedBy, r.DecidedID, r.DecidedKind = "", 0, ""
	}
	return true
}

// audit compares the record of sp with the channel's ledger and restores
// what the record lowers (see Restore), with a warning that names the
// comment it came from (c, ok: the comment; else the state's record).
//
// A ledger ahead of the record is not always a forgery: an overlapping
// run may have applied an answer this run read too, and set its status
// after this run read the comment. When unseenBy says an answer the
// record has not seen was given by the time the ledger's status was set,
// the audit is deferred (nothing restored): the caller applies the
// answers first and audits again with unseenBy nil (Sync).
func audit(ctx context.Context, ch Channel, sp plan.Spec, snap Snapshot, r *tiers.Record, unseenBy func(time.Time) bool, log zerolog.Logger) (restored, deferred bool, err error) {
	lg, isLedger := ch.(Ledger)
	if !isLedger || snap.PR == 0 || (r.PR != 0 && r.PR != snap.PR) {
		return false, false, nil
	}
	desc, at, found, err := lg.Recorded(ctx, sp.Path, r.SHA)
	if err != nil {
		return false, false, fmt.Errorf("read ralph-ci's commit statuses of %s: %w", sp.Path, err)
	}
	if !found {
		return false, false, nil
	}
	e, ok := ParseStatus(desc)
	if !ok {
		log.Warn().Str("spec", sp.Path).Str("status", desc).Msg("ralph-ci's last commit status of the spec is not one it writes: the rejection count is not checked against it")
		return false, false, nil
	}
	before, raised := *r, *r
	if !Restore(&raised, e) {
		return false, false, nil
	}
	if unseenBy != nil && unseenBy(at) {
		return false, true, nil
	}
	*r = raised
	where := "no checkpoint comment, and the record from the state (if any)"
	if c, ok := snap.Comments[sp.Path]; ok {
		where = fmt.Sprintf("forged checkpoint marker in comment %d", c.ID)
	}
	what := fmt.Sprintf("it lowers the rejection count from %d to %d", e.Count, before.RejectionCount)
	if e.Count <= before.RejectionCount {
		what = fmt.Sprintf("it drops the escalation after %d rejections (status %s)", e.Count, before.Status)
	}
	if r.PR == 0 {
		r.PR = snap.PR
	}
	log.Warn().Str("spec", sp.Path).Int("rejection_count", r.RejectionCount).Str("ledger", desc).Time("recorded_at", at).
		Msgf("%s: %s, but ralph-ci's own commit status (set %s) says %q, which nobody else can write or edit; the count is restored to %d (status %s)",
			where, what, at.UTC().Format(time.RFC3339), desc, r.RejectionCount, r.Status)
	return true, false, nil
}
