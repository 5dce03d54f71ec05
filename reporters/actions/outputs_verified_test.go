package actions_test

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// Two specs at 3/3 awaiting approval are two verified specs, as action.yml
// describes the output; awaiting says how many of them wait.
func TestOutputsCountAwaitingAsVerified(t *testing.T) {
	r := &reporters.Report{Specs: []reporters.Spec{
		{Path: "specs/a.spec.md", Outcome: reporters.SpecAwaiting, Counter: 3},
		{Path: "specs/b.spec.md", Outcome: reporters.SpecAwaiting, Counter: 3},
		{Path: "specs/c.spec.md", Outcome: reporters.SpecVerified, Counter: 3},
		{Path: "specs/d.spec.md", Outcome: reporters.SpecPending, Counter: 1},
	}}
	r.Totals = reporters.ComputeTotals(r.Specs)
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
