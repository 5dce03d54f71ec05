package verify

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// A collection step gives the inventory of a project that offers no
// report: a verification command with no test_report and no preset
// ([FindPreset]), such as `make test` or `sh run-tests.sh`, in a project
// whose runner ralph-ci recognises by its files (go.mod: go test; a
// pytest.ini, a conftest.py or pytest's section in pyproject.toml,
// setup.cfg or tox.ini: pytest; jest in package.json or a
// jest.config.*: jest). When the stage starts, ralph-ci runs the runner's
// collection step (`go test -list . ./...`, `pytest --collect-only -q`,
// `jest --listTests`) beside the verification, and reads the tests'
// results from the verification's output, as the runner prints them:
//
//   - go test: the top-level "--- PASS|FAIL|SKIP: TestX" lines of go test
//     -v, each of the package named by the "ok" or "FAIL" line after
//     them; tests are named "example.com/calc/TestDiv" (Test and Fuzz
//     functions; examples are not listed);
//   - pytest: the "NODEID PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR" lines
//     of pytest -v, or the "PASSED|FAILED|… NODEID" lines of pytest -rA;
//     tests are named by node id, "tests/test_calc.py::test_div";
//   - jest: the "PASS|FAIL FILE" line jest prints for each test file;
//     tests are the files, "test/calc.test.js" (jest names a test inside
//     a file by its title alone, which is not a name).
//
// The inventory is the collected tests that the stage-start run showed
// running (passed or failed): a test the project's own command does not
// run is not owed, and a line that names no collected test is not taken
// for one. Where the output shows no result line at all (go test without
// -v, pytest -q), there is no inventory, and the log says how to get
// one. What is not seen: a test skipped inside a jest file that still
// passes (the file's line says PASS; the test files guard sees the
// .skip), go subtests, and anything the output does not print.

// collector is one runner's collection step and the reader of its result
// lines.
type collector struct {
	name string
	argv []string
	// list reads the collection step's output into test names.
	list func() lineReader
	// results reads a run's output into the tests' results.
	results func() lineReader
	// env asks the runner, through the command's environment, for
	// per-test results.
	env func(environ []string) []string
}

// lineReader reads a command's output, written in chunks, into tests.
type lineReader interface {
	Write(p []byte) (int, error)
	run() TestRun
}

// collectors lists the runners whose collection step and result lines
// stand for the report cfg's command does not write, run in dir (inside
// root): none when it names a test_report or has a preset.
func collectors(cfg schema.VerificationConfig, root, dir string) []collector {
	if cfg.TestReport != "" || cfg.Command == nil {
		return nil
	}
	if _, ok := FindPreset(*cfg.Command, dir, os.TempDir(), nil); ok {
		return nil
	}
	p := newProject(root, dir)
	var out []collector
	for _, r := range runners {
		if r.inProject == nil || r.lines == nil || !r.inProject(p) {
			continue
		}
		lines := r.lines
		var argv []string
		if r.collect != nil {
			argv = r.collect(p)
		}
		out = append(out, collector{name: r.Name, argv: argv, env: r.env,
			list:    func() lineReader { return lines(true, root, p.Prefix) },
			results: func() lineReader { return lines(false, root, p.Prefix) }})
	}
	return out
}

// collect runs c's collection step in dir and returns the tests it
// lists, sorted; ok is false when the step could not run or failed.
func (c collector) collect(ctx context.Context, in Input, dir string, cfg schema.VerificationConfig) (tests []string, ok bool) {
	if _, err := exec.LookPath(c.argv[0]); err != nil && !filepath.IsAbs(c.argv[0]) {
		return nil, false
	}
	list := c.list()
	res, err := agent.Run(ctx, agent.Invocation{Argv: c.argv, Dir: dir, Timeout: timeoutOf(cfg), Grace: commandGrace, Format: "text", Output: list, Host: in.Host})
	if err != nil || res.TimedOut || res.Cancelled || res.ExitCode != 0 {
		in.Log.Warn().Strs("command", c.argv).Int("exit", res.ExitCode).Err(err).Msg("test collection step failed: no inventory from it")
		return nil, false
	}
	run := list.run()
	return run.Passed, true
}

// WholeWarning is logged when tests are judged by their group's verdict
// (a Go package's ok line), and says how to get per-test results.
const WholeWarning = "test results by package only: the output shows a package's ok or FAIL line, not its tests', so a skipped test is not seen; run go test -v (the script may keep GOFLAGS, where ralph-ci sets -v) or go test -json for per-test results"

// result keeps a test's verdict: a failure stays a failure.
func result(m map[string]string, name, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	if m[name] != "fail" {
		m[name] = v
	}
	return m
}

var (
	goResult  = lazyregexp.New(`^--- (PASS|FAIL|SKIP): ((?:Test|Fuzz)\S*) \(`)
	goListed  = lazyregexp.New(`^((?:Test|Fuzz)\w*)$`)
	goPackage = lazyregexp.New(`^(?:ok|FAIL)\s+(\S+)(?:\s|$)`)
)

// goLines reads go test -v's result lines (or, with list, go test -list's
// names), each test of the package named after it.
type goLines struct {
	lineFeed
	list    bool
	found   bool
	pending map[string]string
	verdict map[string]string
	// whole are the packages whose ok or FAIL line came with no result
	// line of their tests (go test without -v).
	whole map[string]string
}

func (g *goLines) Write(p []byte) (int, error) { return g.feed(p, g.line) }

func (g *goLines) line(b []byte, long bool) {
	s := strings.TrimRight(string(b), "\r")
	if long {
		return
	}
	if m := goPackage.FindStringSubmatch(s); m != nil {
		if len(g.pending) == 0 && !g.list {
			g.whole = result(g.whole, m[1], map[bool]string{true: "pass", false: "fail"}[strings.HasPrefix(s, "ok")])
		}
		for t, v := range g.pending {
			g.verdict = result(g.verdict, m[1]+"/"+t, v)
		}
		g.pending = nil
		return
	}
	if g.list {
		if m := goListed.FindStringSubmatch(s); m != nil {
			g.found, g.pending = true, result(g.pending, m[1], "pass")
		}
		return
	}
	if m := goResult.FindStringSubmatch(s); m != nil {
		g.found, g.pending = true, result(g.pending, m[2], strings.ToLower(m[1]))
	}
}

func (g *goLines) run() TestRun {
	g.lines.End(g.line)
	r := runOf(g.found && len(g.verdict) > 0 || len(g.whole) > 0, g.verdict, "pass", "skip")
	for pkg, v := range g.whole {
		if v == "pass" {
			r.WholePassed = append(r.WholePassed, pkg)
		} else {
			r.WholeFailed = append(r.WholeFailed, pkg)
		}
	}
	r.sort()
	return r
}

var (
	pytestVerbose = lazyregexp.New(`^(\S+::.+?) (PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR)\b`)
	pytestSummary = lazyregexp.New(`^(PASSED|FAILED|SKIPPED|XFAIL|XPASS|ERROR) (\S+::.+?)(?: - .*)?$`)
	pytestListed  = lazyregexp.New(`^(\S+::.+)$`)
)

// pytestLines reads pytest -v's or -rA's result lines (or, with list,
// pytest --collect-only -q's node ids).
type pytestLines struct {
	lineFeed
	list    bool
	verdict map[string]string
}

func (p *pytestLines) Write(b []byte) (int, error) { return p.feed(b, p.line) }

func (p *pytestLines) line(b []byte, long bool) {
	s := strings.TrimRight(string(b), " \r")
	if long {
		return
	}
	if p.list {
		if m := pytestListed.FindStringSubmatch(s); m != nil {
			p.verdict = result(p.verdict, m[1], "pass")
		}
		return
	}
	word, id := "", ""
	if m := pytestVerbose.FindStringSubmatch(s); m != nil {
		id, word = m[1], m[2]
	} else if m := pytestSummary.FindStringSubmatch(s); m != nil {
		word, id = m[1], m[2]
	} else {
		return
	}
	switch word {
	case "PASSED", "XPASS":
		p.verdict = result(p.verdict, id, "pass")
	case "SKIPPED", "XFAIL":
		p.verdict = result(p.verdict, id, "skip")
	default:
		p.verdict = result(p.verdict, id, "fail")
	}
}

func (p *pytestLines) run() TestRun {
	p.lines.End(p.line)
	return runOf(len(p.verdict) > 0, p.verdict, "pass", "skip")
}

var jestResult = lazyregexp.New(`^\s*(PASS|FAIL)\s+(\S+)`)

// jestLines reads the PASS or FAIL line jest prints for each test file
// (or, with list, jest --listTests's absolute paths), naming files
// relative to root; prefix is the command's folder relative to root.
type jestLines struct {
	lineFeed
	list         bool
	root, prefix string
	verdict      map[string]string
}

func (j *jestLines) Write(b []byte) (int, error) { return j.feed(b, j.line) }

func (j *jestLines) line(b []byte, long bool) {
	s := strings.TrimRight(string(bytes.TrimSpace(b)), "\r")
	if long || s == "" {
		return
	}
	if j.list {
		if filepath.IsAbs(s) {
			j.verdict = result(j.verdict, relTo(s, j.root), "pass")
		}
		return
	}
	if m := jestResult.FindStringSubmatch(s); m != nil {
		name := filepath.ToSlash(filepath.Join(j.prefix, m[2]))
		j.verdict = result(j.verdict, name, map[string]string{"PASS": "pass", "FAIL": "fail"}[m[1]])
	}
}

func (j *jestLines) run() TestRun {
	j.lines.End(j.line)
	return runOf(len(j.verdict) > 0, j.verdict, "pass", "skip")
}

// relTo names an absolute path relative to root (also when root is
// relative or reached through a symbolic link), slash-separated.
func relTo(name, root string) string {
	roots := []string{root}
	if abs, err := filepath.Abs(root); err == nil {
		roots = append(roots, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			roots = append(roots, real)
		}
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, name); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return name
}

// Inventory runs cfg's command when the stage starts, as External does,
// and returns what it showed of the tests: for a command that a
// collection step stands for ([collectors]), only the collected tests,
// and nothing (with a warning saying why) when its output shows no
// test's result.
func Inventory(ctx context.Context, in Input, cfg schema.VerificationConfig) TestRun {
	run := external{}.Verify(ctx, in, cfg).Tests
	dir, err := WorkDir(in.Root, cfg.WorkingDir)
	if err != nil {
		return run
	}
	cs := collectors(cfg, in.Root, dir)
	if len(cs) == 0 {
		return run
	}
	var collected []string
	steps := 0
	for _, c := range cs {
		if c.argv == nil {
			continue // no collection step: the tests are those its lines name
		}
		steps++
		tests, ok := c.collect(ctx, in, dir, cfg)
		if !ok {
			continue
		}
		in.Log.Info().Str("runner", c.name).Strs("step", c.argv).Int("collected", len(tests)).Msg("test collection step: the project writes no report; its runner lists the tests")
		collected = append(collected, tests...)
	}
	slices.Sort(collected)
	if steps == 0 {
		if run.Found && len(run.Passed)+len(run.Failed)+len(run.Skipped) == 0 {
			in.Log.Warn().Msg("test inventory: the verification's output shows no test's own result (unittest without -v prints its totals), so no test is owed and claims are judged by the totals; pass -v to unittest in the script for per-test results")
		}
		return run
	}
	if len(collected) == 0 {
		return TestRun{}
	}
	if !run.Found {
		in.Log.Warn().Int("collected", len(collected)).Msg("test inventory: the verification's output shows no test's result, so no test is owed; run the tests verbosely (go test -v, pytest -v or -rA; jest prints a line per file) or name a test_report")
		return TestRun{}
	}
	keep := func(names []string) []string {
		return slices.DeleteFunc(slices.Clone(names), func(n string) bool { _, ok := slices.BinarySearch(collected, n); return !ok })
	}
	out := TestRun{Found: true, Passed: keep(run.Passed), Failed: keep(run.Failed), Skipped: keep(run.Skipped)}
	// A group whose output showed only its verdict owes its collected
	// tests at that granularity.
	var whole int
	for _, n := range collected {
		switch run.Whole(n) {
		case "pass":
			out.Passed, whole = append(out.Passed, n), whole+1
		case "fail":
			out.Failed, whole = append(out.Failed, n), whole+1
		}
	}
	if whole > 0 {
		in.Log.Warn().Int("tests", whole).Strs("groups", append(slices.Clone(run.WholePassed), run.WholeFailed...)).Msg(WholeWarning)
	}
	out.sort()
	if unseen := len(collected) - out.Ran() - len(out.Skipped); unseen > 0 {
		in.Log.Warn().Int("collected", len(collected)).Int("unseen", unseen).Msg("test inventory: collected tests that the verification did not show running are not owed")
	}
	return out
}
