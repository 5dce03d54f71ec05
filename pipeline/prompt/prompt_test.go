package prompt

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
)

// TestBuildGolden pins the whole prompt: the spec, the handoff and
// guardrails with their paths, ralph-ci's feedback, and the Ralph loop
// section of _build_ralph_prompt (iteration/max, agent, outcome, the
// acceptance-criteria checklist, the stage's success criteria, the promise
// and the verification method).
func TestBuildGolden(t *testing.T) {
	for name, in := range map[string]Input{
		"full": {
			SpecPath: "specs/auth.spec.md", SpecBody: "# JWT auth\n\nAdd JWT authentication.\n",
			Stage: "coder", Iteration: 2, MaxIterations: 15,
			Outcome:     "All API endpoints require valid JWT tokens",
			Criteria:    []string{"Login returns a JWT", "Invalid tokens return 401"},
			Description: "Authentication code complete", Promise: "AUTH_IMPLEMENTED", Method: "external", ReportCriteria: true,
			HandoffPath: ".ralph/handoffs/auth.spec-123abc.md", Handoff: "Middleware written; routes next.",
			GuardrailPath: ".ralph/guardrails.md", Guardrails: "Run go test ./... before DONE.",
			Feedback: []string{"The last completion claim was rejected: Command exited with 1, expected 0"},
		},
		"first rotation without a completion spec": {
			SpecPath: "PROMPT.md", SpecBody: "Do the thing.", Stage: "coder", Iteration: 1, MaxIterations: 15,
			Description: "Complete coder stage for: PROMPT", Promise: "IMPLEMENTATION_COMPLETE", Method: "string_match",
			HandoffPath: ".ralph/handoffs/000-prompt-abcdef.md", GuardrailPath: ".ralph/guardrails.md",
		},
	} {
		t.Run(name, func(t *testing.T) {
			golden.Check(t, strings.ReplaceAll(name, " ", "-")+".golden.md", []byte(Build(in)))
		})
	}
}
