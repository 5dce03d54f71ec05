package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reports of the real runners (captured from pytest 7 --junitxml,
// jest 29 --json and cargo test) say which tests passed, were skipped
// (skip, xfail, ignored, todo) and failed.
func TestRunnerReports(t *testing.T) {
	cargo, err := os.ReadFile("testdata/reports/cargo.txt")
	if err != nil {
		t.Fatal(err)
	}
	h := &libtest{}
	for _, chunk := range strings.SplitAfter(string(cargo), "t") { // in odd chunks
		h.Write([]byte(chunk))
	}
	fromCargo := h.run()
	fromPytest, err := ReadReport("testdata/reports/pytest.xml", "/ROOT")
	if err != nil {
		t.Fatal(err)
	}
	fromJest, err := ReadReport("testdata/reports/jest.json", "/ROOT")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  TestRun
		want string
	}{
		{"pytest", fromPytest, "passed [tests.test_calc/test_add] skipped [tests.test_calc/test_skip tests.test_calc/test_xfail] failed [tests.test_calc/test_fail]"},
		{"jest", fromJest, "passed [calc.test.js/calc adds] skipped [calc.test.js/calc later calc.test.js/calc sk] failed [calc.test.js/calc fails]"},
		{"cargo", fromCargo, "passed [src/lib.rs/tests::it_works tests/calc.rs/adds] skipped [tests/calc.rs/slow] failed [tests/calc.rs/bad]"},
	} {
		got := "passed " + brackets(tc.run.Passed) + " skipped " + brackets(tc.run.Skipped) + " failed " + brackets(tc.run.Failed)
		if !tc.run.Found || got != tc.want {
			t.Errorf("%s: found %v, %s\nwant %s", tc.name, tc.run.Found, got, tc.want)
		}
	}
}

func brackets(s []string) string { return "[" + strings.Join(s, " ") + "]" }

// A directory of JUnit files (Maven Surefire, Gradle) is one report; a
// file that is neither JUnit nor a jest/vitest report is an error.
func TestReportDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"TEST-a.xml": `<testsuite><testcase classname="a.ATest" name="one"/></testsuite>`,
		"TEST-b.xml": `<testsuite><testcase classname="b.BTest" name="two"><skipped/></testcase></testsuite>`,
		"notes.txt":  `not a report`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ReadReport(dir, dir)
	if err != nil || brackets(r.Passed) != "[a.ATest/one]" || brackets(r.Skipped) != "[b.BTest/two]" {
		t.Errorf("ReadReport(dir) = %+v, %v", r, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"numTotalTests": 3}`), 0o644)
	if _, err := ReadReport(bad, dir); err == nil {
		t.Error("a JSON file without testResults was read as a report")
	}
}
