package verify

import (
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// Python's unittest: -v is added after "-m unittest", and its "NAME (ID)
// ... ok" lines are read; behind a script, the same lines when the script
// passes -v, else the totals ("Ran N tests", "OK" or "FAILED"), which
// judge the whole run at once.
var unittest = Runner{
	Name:     "unittest",
	Commands: []string{"`python -m unittest` (`python3`, `uv run`/`poetry run python -m unittest`), anywhere in the command"},
	Files:    []string{"a test*.py at the root or in tests/ that imports unittest, in a project without pytest's configuration"},
	Report: []string{
		"`-v` added after `-m unittest`; the `test_x (pkg.module.Class.test_x) ... ok|FAIL|ERROR|skipped|expected failure|unexpected success` lines",
		"behind a script without `-v`: the `FAIL:`/`ERROR:` headers and the totals (`Ran N tests`, `OK`, `FAILED`), which judge the run as a whole",
	},
	Env: None("unittest reads its verbosity from the command line only: pass -v in the script for per-test results"),
	Config: []ConfigFile{
		{"test*.py", []string{"load_tests", "setUpModule", "module-level statements"}},
		{"__init__.py of a test package", []string{"load_tests"}},
	},
	Markers: Markers{
		Skip:       []string{`@unittest\.skip(If|Unless)?\b`, `\bself\.skipTest\(`, `raise\s+(unittest\.)?SkipTest\b`},
		ExpectFail: []string{`@unittest\.expectedFailure\b`, `@expectedFailure\b`},
		Focus:      None("unittest selects tests on the command line or in load_tests, which are guarded"),
		Invert:     None("expectedFailure is unittest's inversion, listed as expected to fail"),
		Todo:       None("unittest has no todo marker"),
	},
	Detect:    []string{`["']unittest["']\s+in\s+sys\.modules`, `sys\.modules\.get\(\s*["']unittest["']`, `sys\.argv\[0\]\.endswith\(\s*["']unittest`},
	NoTests:   []string{`Ran 0 tests`, `NO TESTS RAN`},
	TestFiles: []string{"test*.py", "*_test.py"},
	TestStart: []string{`^\s*(async\s+)?def\s+test`},

	invoked: func(c Call) bool { return unittestAt.MatchString(c.Shell) },
	preset: func(c Call) (Preset, bool) {
		if verboseFlag.MatchString(c.Shell) {
			return Preset{Runner: "unittest", Command: c.cmd, Added: "nothing (reads its -v lines)", lines: &unittestLines{verbose: true}}, true
		}
		after := "unittest" // -v goes after discover, which must come first
		if m := unittestAt.FindStringSubmatch(c.Shell); m != nil && strings.HasSuffix(m[2], "discover") {
			after = "discover"
		}
		return Preset{Runner: "unittest", Command: c.rebuild(unittestAt.ReplaceAllString(c.Shell, "${1}${2} -v${3}"), insertAfter(c.Words, after, "-v")), Added: "-v", lines: &unittestLines{verbose: true}}, true
	},
	inProject: func(p Project) bool {
		if pytest.inProject(p) {
			return false
		}
		for _, dir := range []string{".", "tests", "test"} {
			for _, name := range p.Glob(dir, "test*.py") {
				if src := p.Read(name); strings.Contains(src, "import unittest") || strings.Contains(src, "from unittest") {
					return true
				}
			}
		}
		return false
	},
	lines: func(bool, string, string) lineReader { return &unittestLines{} },
}

// unittestAt finds python -m unittest at a command position.
var unittestAt = atCommand(`(?:(?:uv|poetry|pipenv|hatch|pdm)\s+run\s+)?python3?(?:\.\d+)?\s+-m\s+unittest(?:\s+discover)?`)

var (
	verboseFlag     = lazyregexp.New(`(^|\s)(-v|--verbose)(\s|$)`)
	unittestVerbose = lazyregexp.New(`^(\w+) \(([\w.]+)\)`)
	unittestResult  = lazyregexp.New(`\.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)\b`)
	unittestHeader  = lazyregexp.New(`^(FAIL|ERROR): (\w+) \(([\w.]+)\)`)
	unittestRan     = lazyregexp.New(`^Ran (\d+) tests? in `)
	unittestTotal   = lazyregexp.New(`^(OK|FAILED)\b`)
)

// unittestLines reads unittest's -v lines ("test_x (pkg.mod.Class.test_x)
// ... ok", the result possibly on the next line after a docstring), the
// FAIL:/ERROR: headers it prints without -v, and its totals. Tests are
// named "pkg.mod.Class/test_x".
type unittestLines struct {
	lineFeed
	// verbose tells that ralph-ci asked for -v: the run is never judged
	// by its totals (a test that printed no line did not run).
	verbose bool
	pending string // a test whose result is on a later line
	ran     bool
	count   int // what "Ran N tests" said
	verdict map[string]string
	total   string
}

func (u *unittestLines) Write(p []byte) (int, error) { return u.feed(p, u.line) }

func (u *unittestLines) line(b []byte, long bool) {
	s := strings.TrimRight(string(b), " \r")
	if long {
		return
	}
	if m := unittestHeader.FindStringSubmatch(s); m != nil {
		u.verdict = result(u.verdict, unittestName(m[2], m[3]), "fail")
		return
	}
	if m := unittestVerbose.FindStringSubmatch(s); m != nil && strings.HasPrefix(m[1], "test") {
		u.pending = unittestName(m[1], m[2])
	}
	if m := unittestResult.FindStringSubmatch(s); m != nil && u.pending != "" {
		v := map[string]string{"ok": "pass", "skipped": "skip", "expected failure": "skip"}[m[1]]
		if v == "" {
			v = "fail" // FAIL, ERROR, unexpected success
		}
		u.verdict = result(u.verdict, u.pending, v)
		u.pending = ""
		return
	}
	if m := unittestRan.FindStringSubmatch(s); m != nil {
		u.ran = true
		u.count, _ = strconv.Atoi(m[1])
		return
	}
	if m := unittestTotal.FindStringSubmatch(s); m != nil && u.ran {
		u.total = map[string]string{"OK": "pass", "FAILED": "fail"}[m[1]]
	}
}

// unittestName is "pkg.mod.Class/test_x" from the method and the id
// unittest prints (the id ends with the method since Python 3.11, with the
// class before).
func unittestName(method, id string) string {
	id = strings.TrimSuffix(id, "."+method)
	return id + "/" + method
}

func (u *unittestLines) run() TestRun {
	u.lines.End(u.line)
	r := runOf(len(u.verdict) > 0 || u.total != "", u.verdict, "pass", "skip")
	if len(u.verdict) == 0 && !u.verbose && u.count > 0 { // totals only: the run is judged as a whole
		switch u.total {
		case "pass":
			r.WholePassed = []string{AllTests}
		case "fail":
			r.WholeFailed = []string{AllTests}
		}
	}
	return r
}
