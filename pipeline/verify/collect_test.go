package verify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// feed writes out to r in small chunks and returns what r read.
func feed(r lineReader, out string) TestRun {
	for i := 0; i < len(out); i += 5 {
		_, _ = r.Write([]byte(out[i:min(i+5, len(out))]))
	}
	return r.run()
}

// Each runner's result lines name the tests as its collection step does;
// output without result lines shows nothing.
func TestResultLines(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		r                    lineReader
		out                  string
		passed, skip, failed string
	}{
		{"go test -list", &goLines{list: true}, "TestA\nTestB\nBenchmarkC\nExampleD\nok  \texample.com/m/calc\t0.278s\n?   \texample.com/m/other\t[no test files]\n", "example.com/m/calc/TestA example.com/m/calc/TestB", "", ""},
		{"go test -v", &goLines{}, "=== RUN   TestA\n--- PASS: TestA (0.00s)\n    --- FAIL: TestA/sub (0.00s)\n--- SKIP: TestB (0.00s)\nPASS\nok  \tx/calc\t0.003s\n--- FAIL: TestC (0.01s)\nFAIL\nFAIL\tx/div\t0.01s\n", "x/calc/TestA", "x/calc/TestB", "x/div/TestC"},
		{"pytest --collect-only -q", &pytestLines{list: true}, "tests/test_x.py::test_a\ntests/test_x.py::test_p[a b]\n\n2 tests collected in 0.11s\n", "tests/test_x.py::test_a tests/test_x.py::test_p[a b]", "", ""},
		{"pytest -v", &pytestLines{}, "tests/test_x.py::test_a PASSED                 [ 25%]\ntests/test_x.py::test_b SKIPPED (unconditional skip)   [ 50%]\ntests/test_x.py::test_p[a b] PASSED        [ 75%]\ntests/test_x.py::test_p[c] FAILED       [100%]\nFAILED tests/test_x.py::test_p[c] - AssertionError: assert 'c' != 'c'\n", "tests/test_x.py::test_a tests/test_x.py::test_p[a b]", "tests/test_x.py::test_b", "tests/test_x.py::test_p[c]"},
		{"pytest -rA", &pytestLines{}, "..sF\nPASSED tests/test_x.py::test_a\nSKIPPED [1] tests/test_x.py:4: unconditional skip\nXFAIL tests/test_x.py::test_x - later\nFAILED tests/test_x.py::test_p[c] - AssertionError\n", "tests/test_x.py::test_a", "tests/test_x.py::test_x", "tests/test_x.py::test_p[c]"},
		{"pytest -q", &pytestLines{}, "..s.\n3 passed, 1 skipped in 0.01s\n", "", "", ""},
		{"jest", &jestLines{prefix: "web"}, "PASS test/a.test.js\nFAIL test/b.test.js\n  ● x\n\nTest Suites: 1 failed, 1 passed, 2 total\n", "web/test/a.test.js", "", "web/test/b.test.js"},
		{"jest --listTests", &jestLines{list: true, root: "/r"}, "/r/test/a.test.js\n/r/web/b.test.js\n", "test/a.test.js web/b.test.js", "", ""},
		{"vitest", &vitestLines{prefix: "web"}, "\n RUN  v3.2.4 /r/web\n\n ✓ test/a.test.js (2 tests) 8ms\n ❯ test/b.test.js (2 tests | 1 failed | 1 skipped) 8ms\n   × x 7ms\n ↓ test/c.test.js (1 test | 1 skipped)\n FAIL  test/b.test.js > x\n", "web/test/a.test.js", "web/test/c.test.js", "web/test/b.test.js"},
		{"vitest list --filesOnly", &vitestLines{list: true}, "test/a.test.js\nsrc/b.spec.ts\n", "src/b.spec.ts test/a.test.js", "", ""},
	} {
		run := feed(tc.r, tc.out)
		got := [3]string{strings.Join(run.Passed, " "), strings.Join(run.Skipped, " "), strings.Join(run.Failed, " ")}
		if want := [3]string{tc.passed, tc.skip, tc.failed}; got != want || run.Found != (tc.passed+tc.skip+tc.failed != "") {
			t.Errorf("%s: found %v passed/skipped/failed %q, want %q", tc.name, run.Found, got, want)
		}
	}
}

// go test without -v prints a package's ok or FAIL line alone: the
// package is judged as a whole, and its tests by it; a package whose
// failing tests show is judged by them.
func TestGoPackageVerdicts(t *testing.T) {
	run := feed(&goLines{}, "ok  \tx/calc\t0.003s\n--- FAIL: TestC (0.01s)\nFAIL\nFAIL\tx/div\t0.01s\nFAIL\tx/build [build failed]\n?   \tx/none\t[no test files]\n")
	if !run.Found || !slices.Equal(run.WholePassed, []string{"x/calc"}) || !slices.Equal(run.WholeFailed, []string{"x/build"}) || !slices.Equal(run.Failed, []string{"x/div/TestC"}) {
		t.Fatalf("go test quiet: %+v", run)
	}
	for test, want := range map[string]string{"x/calc/TestA": "pass", "x/build/TestB": "fail", "x/div/TestC": "", "x/calculus/TestD": ""} {
		if got := run.Whole(test); got != want {
			t.Errorf("Whole(%s) = %q, want %q", test, got, want)
		}
	}
}

// A collection step stands for the report of a command that has none and
// no preset, in a project whose runner is known by its files.
func TestCollectors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func(cfg schema.VerificationConfig) []string {
		var out []string
		for _, c := range collectors(cfg, dir, dir) {
			out = append(out, c.name)
		}
		return out
	}
	wrapper := schema.VerificationConfig{Command: &schema.Command{Shell: "make test"}}
	if got := names(wrapper); got != nil {
		t.Errorf("a project without a known runner: %q", got)
	}
	write("package.json", `{"scripts": {"test": "vitest run"}, "devDependencies": {"eslint-plugin-jest": "1"}}`)
	if got := names(wrapper); !slices.Equal(got, []string{"vitest"}) {
		t.Errorf("a vitest project with a jest lint plugin: %q, want vitest alone", got)
	}
	for _, pkg := range []string{`{"jest": {}}`, `{"scripts": {"test": "tsc && jest --ci"}}`} {
		write("package.json", pkg)
		if got := names(wrapper); !slices.Equal(got, []string{"jest"}) {
			t.Errorf("%s: collectors %q, want jest", pkg, got)
		}
	}
	write("go.mod", "module m\n")
	write("pyproject.toml", "[project]\nname = 'x'\n")
	write("package.json", `{"devDependencies": {"jest": "29.7.0"}}`)
	if got := names(wrapper); !slices.Equal(got, []string{"go test", "jest"}) {
		t.Errorf("collectors %q, want go test and jest (pyproject.toml has no pytest section)", got)
	}
	write("pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
	if got := names(wrapper); !slices.Equal(got, []string{"go test", "pytest", "jest"}) {
		t.Errorf("collectors %q", got)
	}
	for _, cfg := range []schema.VerificationConfig{
		{Command: &schema.Command{Shell: "go test ./..."}},
		{Command: &schema.Command{Shell: "make test"}, TestReport: "build/junit.xml"},
	} {
		if got := names(cfg); got != nil {
			t.Errorf("%s with report %q: collectors %q, want none", cfg.Command.String(), cfg.TestReport, got)
		}
	}
}

// unittest's -v lines name each test "module.Class/method" (a docstring
// puts the result on the next line); without -v its FAIL:/ERROR: headers
// name the failures and its totals judge the run as a whole.
func TestUnittestLines(t *testing.T) {
	verbose := "test_add (tests.test_calc.CalcTest.test_add)\nAdds two. ... ok\ntest_fail (tests.test_calc.CalcTest.test_fail) ... FAIL\ntest_skip (tests.test_calc.CalcTest.test_skip) ... skipped 'later'\ntest_up (tests.test_calc.CalcTest.test_up) ... unexpected success\ntest_xf (tests.test_calc.CalcTest.test_xf) ... expected failure\ntest_old (test_calc.OldTest) ... ok\n\n======\nFAIL: test_fail (tests.test_calc.CalcTest.test_fail)\n------\nRan 5 tests in 0.001s\n\nFAILED (failures=1, skipped=1, expected failures=1)\n"
	run := feed(&unittestLines{}, verbose)
	if !slices.Equal(run.Passed, []string{"test_calc.OldTest/test_old", "tests.test_calc.CalcTest/test_add"}) || !slices.Equal(run.Failed, []string{"tests.test_calc.CalcTest/test_fail", "tests.test_calc.CalcTest/test_up"}) ||
		!slices.Equal(run.Skipped, []string{"tests.test_calc.CalcTest/test_skip", "tests.test_calc.CalcTest/test_xf"}) || len(run.WholePassed)+len(run.WholeFailed) != 0 {
		t.Errorf("unittest -v: %+v", run)
	}
	run = feed(&unittestLines{}, "..s.\n------\nRan 4 tests in 0.001s\n\nOK (skipped=1)\n")
	if !run.Found || !slices.Equal(run.WholePassed, []string{AllTests}) || run.Whole("tests.test_calc.CalcTest/test_add") != "pass" {
		t.Errorf("unittest totals: %+v", run)
	}
	run = feed(&unittestLines{}, "F.\n=====\nFAIL: test_div (tests.test_calc.CalcTest.test_div)\n-----\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n")
	if !slices.Equal(run.Failed, []string{"tests.test_calc.CalcTest/test_div"}) || len(run.WholeFailed) != 0 {
		t.Errorf("unittest failure without -v: %+v", run)
	}
	if run := feed(&unittestLines{}, "\n------\nRan 0 tests in 0.000s\n\nOK\n"); run.Ran() != 0 {
		t.Errorf("no test ran: %+v", run)
	}
	if run := feed(&unittestLines{verbose: true}, "Ran 4 tests in 0.001s\n\nOK\n"); run.Ran() != 0 {
		t.Errorf("-v asked for, no test line: nothing is judged by the totals: %+v", run)
	}
	if run := feed(&unittestLines{}, "hello\n"); run.Found {
		t.Errorf("no unittest output: %+v", run)
	}
}
