package layers

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// A test report is held against the tests that passed earlier in the
// stage: zero tests, a missing test and a skipped one are rejected, and so
// is a run that shows no test result at all where the stage has an
// inventory.
func TestTestRun(t *testing.T) {
	base := []string{"calc/TestDiv", "calc/TestMul"}
	for _, tc := range []struct {
		name   string
		run    verify.TestRun
		ok     bool
		reason string
	}{
		{"no report where tests ran", verify.TestRun{}, false, "showed no test result (no test report, no runner output ralph-ci reads), where 2 tests ran"},
		{"zero tests", verify.TestRun{Found: true}, false, "ran no test"},
		{"all skipped is zero run", verify.TestRun{Found: true, Skipped: base}, false, "ran no test"},
		{"one missing", verify.TestRun{Found: true, Passed: []string{"calc/TestDiv"}}, false, "did not run and pass: calc/TestMul (missing);"},
		{"one skipped", verify.TestRun{Found: true, Passed: []string{"calc/TestMul"}, Skipped: []string{"calc/TestDiv"}}, false, "calc/TestDiv (skipped)"},
		{"one failed", verify.TestRun{Found: true, Passed: []string{"calc/TestMul"}, Failed: []string{"calc/TestDiv"}}, false, "calc/TestDiv (failed)"},
		{"all pass, one new", verify.TestRun{Found: true, Passed: []string{"calc/TestDiv", "calc/TestMul", "calc/TestZero"}}, true, ""},
		{"the package passed as a whole", verify.TestRun{Found: true, WholePassed: []string{"calc"}}, true, ""},
		{"the package failed as a whole", verify.TestRun{Found: true, WholeFailed: []string{"calc"}}, false, "calc/TestDiv (failed), calc/TestMul (failed)"},
		{"another package passed as a whole", verify.TestRun{Found: true, WholePassed: []string{"calculus"}}, false, "calc/TestDiv (missing)"},
		{"a skip seen inside a whole package", verify.TestRun{Found: true, Skipped: []string{"calc/TestDiv"}, WholePassed: []string{"calc"}}, false, "calc/TestDiv (skipped)"},
	} {
		v := Verdict{}
		if ok := v.TestRun(base, nil, tc.run); ok != tc.ok || !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("%s: ok %v reason %q", tc.name, ok, v.Reason)
		}
	}
	v := Verdict{}
	if !v.TestRun(base, nil, verify.TestRun{Found: true, WholePassed: []string{"calc"}}) || len(v.Notes) != 1 || v.Notes[0].Msg != verify.WholeWarning || !strings.Contains(v.Layers[0].Detail, "2 judged by their package's verdict") {
		t.Errorf("judged by the package: a warning that says how to get per-test results: %+v", v)
	}
	if v := (Verdict{}); !v.TestRun(nil, nil, verify.TestRun{}) || len(v.Layers) != 0 {
		t.Errorf("no report and no inventory: nothing known, no layer: %+v", v)
	}
	got := PassedSince(base, verify.TestRun{Passed: []string{"calc/TestZero", "calc/TestDiv"}})
	if strings.Join(got, ",") != "calc/TestDiv,calc/TestMul,calc/TestZero" {
		t.Errorf("PassedSince = %v", got)
	}
}

// A test the stage's criteria retire may go; the others stay owed.
func TestTestRunRetired(t *testing.T) {
	base := []string{"tests.test_calc/test_div", "tests.test_calc/test_old", "tests.test_calc/test_older"}
	run := verify.TestRun{Found: true, Passed: []string{"tests.test_calc/test_div"}}
	v := Verdict{}
	if v.TestRun(base, []string{"tests.test_calc/test_old*"}, run) != true {
		t.Errorf("retired by pattern: %s", v.Reason)
	}
	v = Verdict{}
	if v.TestRun(base, []string{"tests.test_calc/test_old"}, run) || !strings.Contains(v.Reason, "test_older (missing)") {
		t.Errorf("one retired by name: %s", v.Reason)
	}
	inv := Inventory(verify.TestRun{Passed: []string{"b"}, Failed: []string{"a"}, Skipped: []string{"c"}})
	if strings.Join(inv, ",") != "a,b" {
		t.Errorf("Inventory = %v", inv)
	}
}
