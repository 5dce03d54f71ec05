package layers

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The test inventory is the verifier (layer "tests"). When a stage starts,
// ralph-ci runs its verification once, where it reads its tests (a
// test_report, a runner's preset, or a collection step with the result
// lines of the output: verify.ReadsTests, verify.Inventory), and the tests
// the run shows running (passed or failed) are the stage's inventory
// ([Inventory]): what the runner itself says exists, not what file names
// suggest. On every claim each test of
// the inventory, and each that passed in an earlier verification of the
// stage, must have run and passed: one missing (deselected, filtered out,
// its file no longer collected, "no tests found"), skipped, xfailed, todo
// or failed rejects the claim, naming it, whatever made it so (a config
// key, a script, a plugin, a helper, a mapper), and whether or not the
// stage may change tests. Only the tests the stage's criteria name in
// retire_tests may go. A run of no test is a failure, and so is a run
// that shows no test result where the stage has an inventory. Without a
// report and an inventory nothing is known and the layer is not
// reported.

// Inventory lists, sorted, the tests run ran (passed or failed): the
// stage's inventory when run is the report of its verification at its
// start. Tests already skipped then are not owed.
func Inventory(run verify.TestRun) []string {
	out := append(append([]string{}, run.Passed...), run.Failed...)
	slices.Sort(out)
	return slices.Compact(out)
}

// TestRun holds a claim's test report against baseline, the stage's
// inventory and the tests that passed since; retired are the names (or
// path.Match patterns) of tests the stage may remove. It reports whether
// the claim holds.
func (v *Verdict) TestRun(baseline, retired []string, run verify.TestRun) bool {
	if !run.Found && len(baseline) == 0 {
		return true
	}
	if !run.Found {
		v.Reject("tests", fmt.Sprintf("the verification showed no test result (no test report, no runner output ralph-ci reads), where %d tests ran when the stage started: make the runner run them and write its report again", len(baseline)))
		return false
	}
	if run.Ran() == 0 {
		v.Reject("tests", "the verification ran no test (\"no tests found\" or every test skipped): a run of zero tests proves nothing; restore the tests it runs")
		return false
	}
	if owed := Owed(baseline, retired, run); len(owed) > 0 {
		shown := owed
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("and %d more", len(owed)-10))
		}
		v.Reject("tests", "tests that existed when the stage started (or passed since) did not run and pass: "+strings.Join(shown, ", ")+"; make them run and pass again (a stage whose work removes tests names them in retire_tests)")
		return false
	}
	if whole := judgedWhole(baseline, run); len(whole) > 0 {
		v.note(NoteWarn, verify.WholeWarning, whole)
		v.Pass("tests", fmt.Sprintf("%d passed, %d skipped, %d judged by their package's verdict (run the tests verbosely for per-test results)", len(run.Passed), len(run.Skipped), len(whole)))
		return true
	}
	v.Pass("tests", fmt.Sprintf("%d passed, %d skipped", len(run.Passed), len(run.Skipped)))
	return true
}

// judgedWhole lists the baseline tests that run judged by their group's
// verdict alone (run.Whole).
func judgedWhole(baseline []string, run verify.TestRun) []string {
	var out []string
	for _, t := range baseline {
		if _, ok := slices.BinarySearch(run.Passed, t); !ok && run.Whole(t) != "" {
			out = append(out, t)
		}
	}
	return out
}

// Owed lists, sorted, the baseline tests that did not pass in run, each
// with why ("NAME (skipped)", "(failed)" or "(missing)"), except those
// retired names.
func Owed(baseline, retired []string, run verify.TestRun) []string {
	var out []string
	for _, t := range baseline {
		if _, ok := slices.BinarySearch(run.Passed, t); ok || isRetired(t, retired) {
			continue
		}
		_, failed := slices.BinarySearch(run.Failed, t)
		_, skipped := slices.BinarySearch(run.Skipped, t)
		if !failed && !skipped && run.Whole(t) == "pass" {
			continue // its group passed as a whole: judged at the granularity the output shows
		}
		why := "missing"
		if _, ok := slices.BinarySearch(run.Skipped, t); ok {
			why = "skipped"
		} else if failed || run.Whole(t) == "fail" {
			why = "failed"
		}
		out = append(out, t+" ("+why+")")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isRetired(test string, retired []string) bool {
	for _, r := range retired {
		if ok, _ := path.Match(r, test); ok || r == test {
			return true
		}
	}
	return false
}

// PassedSince is the stage's new test baseline: the tests that passed
// before and those that pass now, sorted.
func PassedSince(baseline []string, run verify.TestRun) []string {
	out := append(append([]string{}, baseline...), run.Passed...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Reporting lists the verification configs of crit whose command runs
// (verify.Commands: its own, or its multi_stage stages') and whose tests
// ralph-ci reads (verify.ReadsTests: a test_report, or a runner's
// preset) in the repository at root: those whose run when the stage
// starts gives its inventory.
func Reporting(crit schema.Criteria, root string) []schema.VerificationConfig {
	var out []schema.VerificationConfig
	for _, cfg := range verify.Commands(crit.VerificationMethod, crit.VerificationConfig) {
		if verify.ReadsTests(cfg, root) {
			out = append(out, cfg)
		}
	}
	return out
}
