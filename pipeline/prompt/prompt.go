// Package prompt builds the text an agent gets on stdin for one rotation:
// the spec itself, what the previous rotations handed off, the shared
// guardrails, and the Ralph loop section of the completion-criteria spec
// (_build_ralph_prompt): iteration, stage, outcome, acceptance criteria,
// the stage's success criteria, the promise to print and how the claim
// will be verified.
package prompt

import (
	"fmt"
	"strings"
)

// Input is everything a prompt is made of.
type Input struct {
	SpecPath      string
	SpecBody      string // the spec file without its front matter
	Stage         string
	Iteration     int // of this stage's loop, from 1
	MaxIterations int
	Outcome       string   // "" when the spec has no completion spec
	Criteria      []string // acceptance criteria
	Description   string   // the stage's success criteria
	Promise       string
	Method        string // verification method
	// ReportCriteria asks the agent to end its final message with the
	// acceptance criteria, each marked done or not done (see
	// layers.CriteriaLeft).
	ReportCriteria bool
	HandoffPath    string
	Handoff        string // content of the spec's handoff file
	GuardrailPath  string
	Guardrails     string // content of the shared guardrails file
	// Rejected is why the last claim was rejected ("" when it was not):
	// said under Feedback unless the handoff's notes already say it.
	Rejected string
	// Feedback is what ralph-ci itself has to say to this rotation: a
	// reviewer's findings, a checkpoint's answer. Behavioural context only.
	Feedback []string
}

// Build renders the prompt. The handoff, the guardrails and the feedback
// are bounded (see MaxHandoff and the other caps), the spec is not.
func Build(in Input) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Spec: %s\n\n%s\n", in.SpecPath, strings.TrimSpace(in.SpecBody))

	fmt.Fprintf(&b, "\n## Handoff (%s)\n", in.HandoffPath)
	h := strings.TrimSpace(tail(PruneNotes(in.Handoff), MaxHandoff, in.HandoffPath))
	if h != "" {
		fmt.Fprintf(&b, "%s\n", h)
	} else {
		b.WriteString("No handoff yet: you are the first rotation on this spec.\n")
	}
	fmt.Fprintf(&b, "Before you stop, write what the next rotation needs to know to %s.\n", in.HandoffPath)

	fmt.Fprintf(&b, "\n## Guardrails (%s)\n", in.GuardrailPath)
	if g := strings.TrimSpace(tail(in.Guardrails, MaxGuardrails, in.GuardrailPath)); g != "" {
		fmt.Fprintf(&b, "%s\n", g)
	} else {
		b.WriteString("None yet.\n")
	}
	b.WriteString("Add project-wide lessons that other agents should know to that file.\n")

	feedback := in.Feedback
	if in.Rejected != "" && !HasNote(h, in.Rejected) { // said once: the handoff's note says it
		feedback = append([]string{"The last completion claim was rejected: " + in.Rejected}, feedback...)
	}
	if len(feedback) > 0 {
		b.WriteString("\n## Feedback from ralph-ci\n")
		for _, f := range feedback {
			fmt.Fprintf(&b, "- %s\n", Bound(f, MaxFeedback))
		}
	}

	outcome := in.Outcome
	if outcome == "" {
		outcome = "Complete the assigned task."
	}
	fmt.Fprintf(&b, `
## Ralph Loop Status
- **Iteration**: %d/%d
- **Agent**: %s

## Task Outcome (What "Done" Means)
%s

## Acceptance Criteria
`, in.Iteration, in.MaxIterations, in.Stage, outcome)
	for _, c := range in.Criteria {
		fmt.Fprintf(&b, "- [ ] %s\n", c)
	}
	if in.ReportCriteria && len(in.Criteria) > 0 {
		b.WriteString(`
## Report Each Criterion
End your final message with every acceptance criterion above, word for
word, as a task item marked done or not done (a note may follow a colon),
then the promise line, then the status line:
` + "```" + `
- [x] <a criterion that is met>
- [ ] <a criterion that is not met>: why
` + "```" + `
A criterion marked not done, or missing, rejects the claim.
`)
	}
	fmt.Fprintf(&b, `
## Your Completion Requirements

When you have GENUINELY completed this stage:

**Success Criteria for %s:**
%s

**To signal completion, output, alone on its line just before the status line:**
`+"```"+`
<promise>%s</promise>
`+"```"+`

**CRITICAL:**
- Only output the promise when ALL acceptance criteria are truly met
- Your completion will be verified using: %s
- False promises will be detected and the loop will continue
- If blocked, explain what's preventing completion

The loop will continue until genuine completion or iteration %d.

## Status
End your answer with one line: RALPH_STATUS: DONE (the work is complete),
CONTINUE (more to do), ROTATE (hand over to a fresh agent) or STUCK (you
cannot make progress; say why). You may write the word to .ralph/status
instead.
`, in.Stage, in.Description, in.Promise, in.Method, in.MaxIterations)
	return b.String()
}
