package tiers

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
)

// TestCheckpointText covers section 3 and its four format adaptations.
func TestCheckpointText(t *testing.T) {
	crit := []string{"Invalid tokens return 401", "Login returns a JWT"}
	steps := []string{"curl -X POST /login", "curl -H 'Authorization: Bearer x' /me"}
	tests := []struct {
		golden string
		slice  Slice
	}{
		{"checkpoint_both.txt", Slice{ID: "auth", Name: "JWT authentication", Criteria: crit, Steps: steps}},
		{"checkpoint_criteria.txt", Slice{ID: "auth", Name: "JWT authentication", Criteria: crit}},
		{"checkpoint_steps.txt", Slice{ID: "auth", Name: "JWT authentication", Steps: steps}},
		{"checkpoint_neither.txt", Slice{ID: "PROMPT", Name: "PROMPT"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) { golden.Check(t, tt.golden, []byte(CheckpointText(tt.slice))) })
	}
}

// TestEscalationText covers the escalation format, with and without the
// rejection history (EmptyRejectionLog).
func TestEscalationText(t *testing.T) {
	log := []Rejection{
		{Attempt: 1, Feedback: "the total is wrong", Classification: TestGap, ActionTaken: ActionTaken(TestGap)},
		{Attempt: 2, Feedback: "still wrong", Classification: ContractGap, ActionTaken: ActionTaken(ContractGap)},
		{Attempt: 3, Feedback: "rounding: 2 decimals", Classification: ImplementationGap, ActionTaken: ActionTaken(ImplementationGap)},
	}
	golden.Check(t, "escalation.txt", []byte(EscalationText("JWT authentication", log)))
	golden.Check(t, "escalation_empty_log.txt", []byte(EscalationText("JWT authentication", nil)))
}

// TestFixedMessages pins the texts the spec gives word for word.
func TestFixedMessages(t *testing.T) {
	for got, want := range map[string]string{
		InvalidEscalationChoice:    "Please choose 1, 2, or 3.",
		SkipEntry:                  "Verification skipped by user. Mismatch acknowledged and deferred.",
		VisualCheckpointDeprecated: "visual_checkpoint is deprecated. Use **Verification: verify** in your contracts instead.",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestCommentBody checks the comment: marker first, exact text inside,
// under GitHub's limit even with huge criteria.
func TestCommentBody(t *testing.T) {
	r := Present(Record{}, 7, "0123456789abcdef")
	body := CommentBody("specs/a.spec.md", Slice{ID: "a", Name: "A", Criteria: []string{"x"}}, r)
	golden.Check(t, "comment_pending.md", []byte(body))
	m, err := ParseMarker(body)
	if err != nil || m.Spec != "specs/a.spec.md" || m.Record.SHA != "0123456789abcdef" || m.Record.PR != 7 {
		t.Fatalf("marker: %+v, %v", m, err)
	}
	huge := make([]string, 2000)
	for i := range huge {
		huge[i] = "a criterion that is rather long, to blow the limit of a GitHub comment ```"
	}
	r.RejectionLog = []Rejection{{Attempt: 1, Feedback: string(make([]byte, 100000)), Classification: TestGap}}
	r.RejectionCount = 1
	body = CommentBody("specs/a.spec.md", Slice{ID: "a", Name: "A", Criteria: huge}, r)
	if len(body) >= MaxCommentChars {
		t.Fatalf("body has %d characters", len(body))
	}
	if _, err := ParseMarker(body); err != nil {
		t.Fatal(err)
	}
}
