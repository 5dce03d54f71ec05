package tiers

import (
	"strings"
	"testing"
)

// TestFeedbackIsolation: the test writer gets behaviour only, the
// implementer test names only, nobody gets code.
func TestFeedbackIsolation(t *testing.T) {
	fb := "The total shows 10.001; I expected 10.00. TestTotal passes but should not:\n```go\nfunc TestTotal(t *testing.T) { x := secret() }\n```\nsee `secret()` too\n    indented code\n"
	r := Record{Status: StatusRework, RejectionCount: 1, RejectionLog: []Rejection{{Attempt: 1, Feedback: fb, Classification: TestGap}}}
	tests := []struct {
		stage   string
		want    []string
		notWant []string
	}{
		{"tester", []string{"I expected 10.00", CodeRemoved, "As the test writer"}, []string{"secret", "indented code", "tests named"}},
		{"coder", []string{"I expected 10.00", "tests named: TestTotal"}, []string{"secret", "indented code", "func "}},
		{"qa", []string{"I expected 10.00"}, []string{"secret"}},
	}
	for _, tt := range tests {
		got := strings.Join(Feedback(tt.stage, r), "\n")
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.stage, got, w)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", tt.stage, got, w)
			}
		}
	}
	r.Status = StatusApproved
	if Feedback("coder", r) != nil {
		t.Error("an approved checkpoint gives no feedback")
	}
	pair := Record{Status: StatusRework, Route: RoutePair, Guidance: "first the parser", RejectionLog: []Rejection{}}
	if got := strings.Join(Feedback("tester", pair), "\n"); !strings.Contains(got, "first the parser") {
		t.Errorf("pair guidance missing: %q", got)
	}
}
