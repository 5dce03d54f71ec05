package tiers

import (
	"fmt"
	"strings"
)

// Messages the spec fixes word for word.
const (
	// InvalidEscalationChoice re-prompts after an answer that is not 1, 2 or 3.
	InvalidEscalationChoice = "Please choose 1, 2, or 3."
	// SkipEntry is the log entry of escalation option 3.
	SkipEntry = "Verification skipped by user. Mismatch acknowledged and deferred."
	// VisualCheckpointDeprecated is the warning for workflow.visual_checkpoint: true.
	VisualCheckpointDeprecated = "visual_checkpoint is deprecated. Use **Verification: verify** in your contracts instead."
	// HistoryUnavailable warns about an escalation with an empty log (EmptyRejectionLog).
	HistoryUnavailable = "EmptyRejectionLog: the escalation is shown without its rejection history, which is unavailable"
)

// Slice is what a checkpoint shows: the spec's id and title, and the
// criteria and steps aggregated over its contracts.
type Slice struct {
	ID, Name string
	Criteria []string
	Steps    []string
}

const options = `  1) Yes -- mark complete and continue
  2) No -- I'll describe what's wrong
  3) Partially -- some criteria met, I'll describe the gaps
`

// CheckpointText is the checkpoint of section 3, with the format
// adaptation rules: the criteria and steps blocks only when there are
// criteria and steps, and with neither the simplified prompt.
func CheckpointText(s Slice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ALL TESTS PASSING -- Slice %s: %s\n\n", s.ID, s.Name)
	if len(s.Criteria) == 0 && len(s.Steps) == 0 {
		b.WriteString("Does the output match your intent?\n")
		b.WriteString(options)
		return b.String()
	}
	b.WriteString("Please verify the output matches your intent.\n\n")
	if len(s.Criteria) > 0 {
		b.WriteString("Acceptance criteria:\n")
		for _, c := range s.Criteria {
			fmt.Fprintf(&b, "  [ ] %s\n", c)
		}
		b.WriteString("\n")
	}
	if len(s.Steps) > 0 {
		b.WriteString("Steps to verify:\n")
		for i, st := range s.Steps {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, st)
		}
		b.WriteString("\n")
	}
	b.WriteString("Does this match what you intended?\n")
	b.WriteString(options)
	return b.String()
}

// EscalationText is the escalation of section 5 for a slice named name.
// With an empty log the rejection history block is left out
// (EmptyRejectionLog); the caller warns.
func EscalationText(name string, log []Rejection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ESCALATION -- %s\n\n", name)
	b.WriteString("This slice has been rejected 3 times. Continued iteration without intervention is unlikely to converge.\n\n")
	if len(log) > 0 {
		b.WriteString("Rejection history:\n")
		for i, r := range log {
			fmt.Fprintf(&b, "  %d. Feedback: \"%s\" | Action: %s\n", i+1, r.Feedback, r.ActionTaken)
		}
		b.WriteString("\n")
	}
	b.WriteString(`How would you like to proceed?

  1) Re-scope — Reset the rejection counter and restart the slice from scratch
  2) Pair — Reply 2 with step-by-step guidance: the spec goes back to work with it; resets the rejection counter
  3) Skip verification — Mark as auto-verified and proceed (does not reset the counter)

Which option? (1/2/3)
`)
	return b.String()
}

// ActionTaken describes the remediation of a rejection, for the log.
func ActionTaken(classification string) string {
	switch classification {
	case TestGap:
		return "sent back to work from the tester stage; the test writer gets the feedback as behavioural context"
	case ContractGap:
		return "sent back to work from the first stage after the contract is revised; the rejection counter is kept"
	case ImplementationGap:
		return "sent back to work from the first stage with the detail as additional context"
	}
	return "sent back to work"
}
