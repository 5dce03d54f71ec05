package verify

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// node --test gets its JUnit reporter right after `node`, where Node
// reads its options (after a file pattern they would be patterns).
func TestNodeTestPreset(t *testing.T) {
	for _, tc := range []struct {
		cmd  schema.Command
		want string // the command ralph-ci runs; "" no preset
	}{
		{schema.Command{Shell: "node --test"}, "node --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=/tmp/r/node-test.xml --test"},
		{schema.Command{Shell: "cd lib && node --no-warnings --test test/"}, "cd lib && node --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=/tmp/r/node-test.xml --no-warnings --test test/"},
		{schema.Command{Argv: []string{"node", "--test", "test/"}}, `["node" "--test-reporter=spec" "--test-reporter-destination=stdout" "--test-reporter=junit" "--test-reporter-destination=/tmp/r/node-test.xml" "--test" "test/"]`},
		{schema.Command{Shell: "node --test --test-reporter=tap"}, ""},
		{schema.Command{Shell: "node server.js --test"}, ""},
		{schema.Command{Shell: "node build.js"}, ""},
	} {
		p, ok := FindPreset(tc.cmd, t.TempDir(), "/tmp/r", nil)
		got := ""
		if ok {
			got = p.Command.String()
			if p.Runner != "node --test" || p.Report != "/tmp/r/node-test.xml" {
				t.Errorf("%s: preset %+v", tc.cmd, p)
			}
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.cmd, got, tc.want)
		}
	}
	if strings.Contains(nodeTest.Report[0], "|") {
		t.Error("a pipe in the docs' cell")
	}
}

// A TAP report: every ok and not ok line, subtests included; SKIP and
// TODO do not pass; a bail out fails.
func TestParseTAP(t *testing.T) {
	tap := "TAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\n  duration_ms: 1\n  ...\nok 2 - skips # SKIP\nok 3 - later # TODO not yet\nnot ok 4 - divides\n" +
		"# Subtest: calc\n    ok 1 - multiplies\n    1..1\nok 5 - calc\nok 6\n1..6\n"
	data := []byte(tap)
	if !IsTAP(data) || IsTAP([]byte("<testsuites/>")) || IsTAP([]byte(`{"examples": []}`)) {
		t.Fatal("IsTAP")
	}
	r, err := parseReport(data, "/r")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Passed, ",") + "|" + strings.Join(r.Skipped, ",") + "|" + strings.Join(r.Failed, ","); got != "adds,calc,line 14,multiplies|later,skips|divides" {
		t.Errorf("run %s", got)
	}
	if r := ParseTAP([]byte("1..2\nok 1 - a\nBail out! the database is down\n")); strings.Join(r.Failed, ",") != "Bail out!" {
		t.Errorf("bail out: %+v", r)
	}
}

// rspec's JSON report: examples by file and full description.
func TestParseRSpecJSON(t *testing.T) {
	r, err := parseReport([]byte(`{"version":"3.12.0","examples":[{"full_description":"calc adds","status":"passed","file_path":"./spec/calc_spec.rb"},`+
		`{"full_description":"calc skips","status":"pending","file_path":"./spec/calc_spec.rb"},{"full_description":"calc divides","status":"failed","file_path":"./spec/calc_spec.rb"}],"summary":{}}`), "/r")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Passed, ",") != "spec/calc_spec.rb/calc adds" || strings.Join(r.Skipped, ",") != "spec/calc_spec.rb/calc skips" || strings.Join(r.Failed, ",") != "spec/calc_spec.rb/calc divides" {
		t.Errorf("run %+v", r)
	}
}

// minitest's -v lines name each test; its totals alone judge the run as
// a whole.
func TestMinitestLines(t *testing.T) {
	l := &minitestLines{}
	_, _ = l.Write([]byte("Run options: -v --seed 1\n\nCalcTest#test_fail = 0.00 s = F\nCalcTest#test_skip = 0.00 s = S\nCalcTest#test_add = 0.00 s = .\n\n3 runs, 2 assertions, 1 failures, 0 errors, 1 skips\n"))
	r := l.run()
	if strings.Join(r.Passed, ",") != "CalcTest/test_add" || strings.Join(r.Skipped, ",") != "CalcTest/test_skip" || strings.Join(r.Failed, ",") != "CalcTest/test_fail" {
		t.Errorf("run %+v", r)
	}
	l = &minitestLines{}
	_, _ = l.Write([]byte("3 runs, 3 assertions, 0 failures, 0 errors, 0 skips\n"))
	if r := l.run(); strings.Join(r.WholePassed, ",") != AllTests {
		t.Errorf("totals only: %+v", r)
	}
}

// unittest's discover takes -v after it: before it, unittest exits 2.
func TestUnittestDiscoverPreset(t *testing.T) {
	for cmd, want := range map[string]string{
		"python3 -m unittest discover -s tests -t .": "python3 -m unittest discover -v -s tests -t .",
		"python3 -m unittest tests.test_calc":        "python3 -m unittest -v tests.test_calc",
		"cd x && python -m unittest discover":        "cd x && python -m unittest discover -v",
	} {
		p, ok := FindPreset(schema.Command{Shell: cmd}, t.TempDir(), "/tmp/r", nil)
		if !ok || p.Command.Shell != want {
			t.Errorf("%s: %q, want %q", cmd, p.Command.Shell, want)
		}
	}
	p, _ := FindPreset(schema.Command{Argv: []string{"python3", "-m", "unittest", "discover", "-s", "tests"}}, t.TempDir(), "/tmp/r", nil)
	if got := strings.Join(p.Command.Argv, " "); got != "python3 -m unittest discover -v -s tests" {
		t.Errorf("argv: %q", got)
	}
}
