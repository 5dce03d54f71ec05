package verify

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/schema"
)

// testReading is how an external command's tests are read: from its
// test_report, from the report a preset adds ([FindPreset]), from go test
// -json events or cargo's harness lines in its output, or from the result
// lines a collection step stands for ([collectors]), in that order.
type testReading struct {
	cmd    schema.Command // the command to run (a preset's flag added)
	env    []string       // added to its environment (a preset's variable)
	output io.Writer      // receives its output
	report string         // the report file or folder to read; "" for none
	name   string         // the report as errors name it
	strict bool           // a missing report is the command's failure (test_report)
	events *goTestJSON
	libtst *libtest
	text   *goText      // go test -json events shown as text, when ralph-ci added -json
	lines  []lineReader // result lines of the runners a collection step stands for
	tmp    string       // ralph-ci's folder for a preset's report
}

// readTests prepares the reading of the tests of cfg's command, run in
// dir; shown receives the output as the log and the matchers read it.
// The caller closes it.
func readTests(in Input, cfg schema.VerificationConfig, dir string, shown io.Writer) (*testReading, error) {
	t := &testReading{cmd: *cfg.Command, events: &goTestJSON{}, libtst: &libtest{}, name: cfg.TestReport, strict: cfg.TestReport != ""}
	switch {
	case cfg.TestReport == OutputReport:
	case cfg.TestReport != "":
		t.report = filepath.Join(in.Root, filepath.FromSlash(cfg.TestReport))
	default:
		tmp, err := os.MkdirTemp(in.Host.TempDir(), "ralph-report-") // where the command may write (Landlock)
		if err != nil {
			return nil, fmt.Errorf("a folder for the test report: %w", err)
		}
		if err := sameOwner(tmp, in.Host.TempDir()); err != nil { // the agent's user of its own writes it
			_ = os.RemoveAll(tmp)
			return nil, fmt.Errorf("a folder for the test report: %w", err)
		}
		t.tmp = tmp
		if err := in.Host.GiveDir(tmp); err != nil { // the command writes its report there
			t.close()
			return nil, fmt.Errorf("a folder for the test report: %w", err)
		}
		if _, err := safefile.ReadIn(dir, filepath.Join(dir, "package.json"), safefile.ConfigLimit); errors.Is(err, safefile.ErrLeavesTree) {
			in.Log.Warn().Err(err).Msg("package.json is a link that leads out of the work tree: ralph-ci read no test runner from it (the agent may have put it there)")
		}
		if p, ok := FindPreset(t.cmd, dir, tmp, os.Environ()); ok {
			in.Log.Info().Str("command", t.cmd.String()).Str("runner", p.Runner).Str("added", p.Added).Msg("test report preset: ralph-ci reads the runner's own report (set test_report to choose another)")
			if p.GoJSON {
				t.text = &goText{out: shown} // the log and the matchers read go test -v's text
				shown = t.text
			}
			t.cmd, t.env, t.report, t.name = p.Command, p.Env, p.Report, p.Runner+"'s report"
			if p.lines != nil {
				t.lines = append(t.lines, p.lines)
			}
		}
		for _, c := range collectors(cfg, in.Root, dir) {
			t.lines = append(t.lines, c.results())
			if c.env != nil { // behind a script: ask the runner for a line per test
				env := c.env(os.Environ())
				in.Log.Info().Str("runner", c.name).Strs("env", env).Msg("test results behind a script: ralph-ci asks the runner for a result line per test through the environment")
				t.env = append(t.env, env...)
			}
		}
	}
	out := multi{shown, t.events, t.libtst}
	for _, l := range t.lines {
		out = append(out, l)
	}
	t.output = out
	if t.report != "" {
		// A report left from an earlier run (or written by the agent) is
		// no report of this one.
		if err := os.RemoveAll(t.report); err != nil {
			t.close()
			return nil, fmt.Errorf("removing the old test report: %w", err)
		}
	}
	return t, nil
}

// read is what the command's run showed of its tests, and why the run
// fails ("" when it does not): a test_report it did not write, or one
// that cannot be read.
func (t *testReading) read(in Input) (TestRun, string) {
	if t.text != nil {
		t.text.Flush()
	}
	run := t.events.run()
	if !run.Found {
		run = t.libtst.run()
	}
	if !run.Found { // the result lines of every runner the project has
		for _, l := range t.lines {
			if r := l.run(); r.Found {
				run = run.Merge(r)
				run.Found = true
			}
		}
	}
	if t.report == "" {
		return run, ""
	}
	switch _, err := os.Stat(t.report); {
	case err != nil && t.strict:
		return run, fmt.Sprintf("The test report %s was not written: %v", t.name, err)
	case err != nil: // a preset's report: no test ran, which the test inventory judges
		in.Log.Debug().Str("report", t.report).Msg("the runner wrote no test report")
		return run, ""
	}
	run, err := ReadReport(t.report, in.Root)
	if err != nil {
		return run, fmt.Sprintf("The test report %s is unreadable: %v", t.name, err)
	}
	return run, ""
}

// close removes ralph-ci's folder for a preset's report.
func (t *testReading) close() {
	if t.tmp != "" {
		_ = os.RemoveAll(t.tmp)
	}
}
