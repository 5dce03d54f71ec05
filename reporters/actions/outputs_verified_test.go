package actions_test

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// Two specs at 3/3 awaiting approval are two verified specs, as action.yml
// describes the output; awaiting says how many of them wait.
func TestOutputsCountAwaitingAsVerified(t *testing.T) {
	r := &report.Report{Specs: []report.Spec{
		{Path: "specs/a.spec.md", Outcome: report.SpecAwaiting, Counter: 3},
		{Path: "specs/b.spec.md", Outcome: report.SpecAwaiting, Counter: 3},
		{Path: "specs/c.spec.md", Outcome: report.SpecVerified, Counter: 3},
		{Path: "specs/d.spec.md", Outcome: report.SpecPending, Counter: 1},
	}}
	r.Totals = report.ComputeTotals(r.Specs)
	got := map[string]string{}
	for _, o := range actions.Outputs(r, "", "") {
		got[o.Name] = o.Value
	}
	want := map[string]string{"specs": "4", "verified": "3", "awaiting": "2", "pending": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("output %s = %q, want %q", k, got[k], v)
		}
	}
}
