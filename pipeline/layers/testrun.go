package layers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// TestRun holds the verification's test report against the stage's
// baseline (layer "tests"): where the verification produced a report (go
// test -json output, or JUnit XML), a run of no test is a failure, and so
// is a test that passed in an earlier verification of the stage and is
// now missing or skipped. baseline lists those tests. Without a report
// nothing is known and the layer is not reported.
func (v *Verdict) TestRun(baseline []string, run verify.TestRun) bool {
	if !run.Found {
		return true
	}
	if run.Ran() == 0 {
		v.Reject("tests", "the verification ran no test: a run of zero tests proves nothing; restore the tests it runs")
		return false
	}
	if gone := Vanished(baseline, run); len(gone) > 0 {
		shown := gone
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("and %d more", len(gone)-10))
		}
		v.Reject("tests", "tests that passed earlier in this stage are now missing or skipped: "+strings.Join(shown, ", ")+"; make them run and pass again")
		return false
	}
	v.Pass("tests", fmt.Sprintf("%d passed, %d skipped", len(run.Passed), len(run.Skipped)))
	return true
}

// Vanished lists, sorted, the baseline tests that did not pass in run.
func Vanished(baseline []string, run verify.TestRun) []string {
	var out []string
	for _, t := range baseline {
		if _, ok := slices.BinarySearch(run.Passed, t); !ok {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// PassedSince is the stage's new test baseline: the tests that passed
// before and those that pass now, sorted.
func PassedSince(baseline []string, run verify.TestRun) []string {
	out := append(append([]string{}, baseline...), run.Passed...)
	slices.Sort(out)
	return slices.Compact(out)
}
