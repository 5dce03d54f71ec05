package tiers

import (
	"fmt"
)

// Effect is what applying an answer did, for the caller to act on and log.
type Effect struct {
	// Ignored is why the answer changed nothing ("" when it counted).
	Ignored string
	// Approved, Rejected, Escalated, SentBack, Skipped tell what happened.
	Approved, Rejected, Escalated, SentBack, Skipped bool
	// ResetCounter is true when escalation option 1 or 2 reset the counter.
	ResetCounter bool
	// Warnings to show the user (CounterOverflow, LogCorruption, ...).
	Warnings []string
}

// Present (re-)presents the checkpoint for head: the record becomes
// pending for that commit. A record of another pull request is a new
// slice execution and starts over. An escalated or skipped record keeps
// its status; an approval for head stays.
func Present(r Record, pr int, head string) Record {
	if r.PR != pr && r.Status != StatusNone {
		r = Record{}
	}
	r.PR = pr
	switch {
	case r.Status == StatusEscalated, r.Status == StatusSkipped:
	case r.Status == StatusApproved && r.SHA == head:
	default:
		r.Status, r.SHA, r.DecidedBy, r.Reprompt = StatusPending, head, "", ""
		r.DecidedID, r.DecidedKind = 0, ""
	}
	if r.RejectionLog == nil {
		r.RejectionLog = []Rejection{}
	}
	return r
}

// Check enforces the counter invariants on a record read from a comment
// or from state: LogCorruption (the log is reset to [] and the count
// kept) and CounterOverflow (more than 3 rejections without escalation:
// escalate now). It returns the warnings to show.
func Check(r *Record) []string {
	var warns []string
	if err := logConsistent(*r); err != nil {
		warns = append(warns, fmt.Sprintf("LogCorruption: the rejection log was inconsistent (%v); it is reset to [] and the rejection count %d is kept", err, r.RejectionCount))
		r.RejectionLog = []Rejection{}
	}
	if r.RejectionCount > EscalationThreshold && r.Status != StatusEscalated && r.Status != StatusSkipped {
		warns = append(warns, fmt.Sprintf("CounterOverflow: the rejection count is %d, above %d, without an escalation: escalating now", r.RejectionCount, EscalationThreshold))
		r.Status = StatusEscalated
	}
	return warns
}

// logConsistent checks that the log has at most one entry per rejection,
// numbered 1, 2, ... in order, each with a known classification.
func logConsistent(r Record) error {
	if r.RejectionCount < 0 {
		return fmt.Errorf("negative rejection count %d", r.RejectionCount)
	}
	if len(r.RejectionLog) > r.RejectionCount {
		return fmt.Errorf("%d entries for %d rejections", len(r.RejectionLog), r.RejectionCount)
	}
	offset := r.RejectionCount - len(r.RejectionLog)
	for i, e := range r.RejectionLog {
		if e.Attempt != offset+i+1 {
			return fmt.Errorf("entry %d has attempt %d", i+1, e.Attempt)
		}
		switch e.Classification {
		case TestGap, ContractGap, ImplementationGap:
		default:
			return fmt.Errorf("entry %d has classification %q", i+1, e.Classification)
		}
	}
	return nil
}

// Apply applies one authorized answer to the record. head is the commit
// the pull request is at: an approval given while the checkpoint shows
// another commit is stale and ignored.
func Apply(r *Record, a Answer, head string) Effect {
	eff := apply(r, a, head)
	if eff.Ignored == "" {
		r.DecidedID, r.DecidedKind = a.ID, a.Kind
	}
	return eff
}

func apply(r *Record, a Answer, head string) Effect {
	var eff Effect
	switch r.Status {
	case StatusPending:
		if r.SHA != head {
			eff.Ignored = fmt.Sprintf("stale: the checkpoint was presented for commit %s, the pull request is at %s", short(r.SHA), short(head))
			return eff
		}
		v := ReadCheckpointAnswer(a)
		if v.Approve {
			r.Status, r.DecidedBy, eff.Approved = StatusApproved, a.Author, true
			return eff
		}
		eff.Rejected = true
		r.RejectionCount++
		r.RejectionLog = append(r.RejectionLog, Rejection{Attempt: r.RejectionCount, Feedback: v.Feedback, Classification: v.Classification, ActionTaken: ActionTaken(v.Classification)})
		r.Route, r.DecidedBy = v.Classification, a.Author
		if r.RejectionCount >= EscalationThreshold {
			r.Status, eff.Escalated = StatusEscalated, true
			if len(r.RejectionLog) == 0 {
				eff.Warnings = append(eff.Warnings, HistoryUnavailable)
			}
			return eff
		}
		r.Status, eff.SentBack = StatusRework, true
	case StatusEscalated:
		c := ReadEscalationAnswer(a)
		r.DecidedBy = a.Author
		switch c.Option {
		case 1:
			r.Status, r.Route, r.RejectionCount, r.RejectionLog, r.Guidance, r.Reprompt = StatusRework, RouteRescope, 0, []Rejection{}, "", ""
			eff.SentBack, eff.ResetCounter = true, true
		case 2:
			r.Status, r.Route, r.RejectionCount, r.RejectionLog, r.Guidance, r.Reprompt = StatusRework, RoutePair, 0, []Rejection{}, c.Rest, ""
			eff.SentBack, eff.ResetCounter = true, true
		case 3:
			r.Status, r.Skip, r.Reprompt, eff.Skipped = StatusSkipped, SkipEntry, "", true
		default:
			r.Reprompt = InvalidEscalationChoice
			eff.Ignored = "InvalidEscalationChoice: " + InvalidEscalationChoice
		}
	default:
		eff.Ignored = fmt.Sprintf("no open checkpoint (status %q)", r.Status)
	}
	return eff
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	if sha == "" {
		return "(none)"
	}
	return sha
}
