package verify

import (
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// minitest, through rake's test task or ruby itself: -v makes it print a
// line per test ("CalcTest#test_div = 0.00 s = ."); rake passes TESTOPTS
// to it, also behind a script.
var minitest = Runner{
	Name:     "minitest",
	Commands: []string{"`rake test`, `bundle exec rake test`, `rails test`, or `ruby -Itest FILE_test.rb`, at a command position"},
	Files:    []string{"a Rakefile with a Rake::TestTask, or test/*_test.rb files that require minitest"},
	Report: []string{
		"`TESTOPTS=-v` for rake (`-v` appended for ruby and rails): the `Class#test_name = 0.00 s = .|F|E|S` lines",
		"without them: the totals (`N runs, N assertions, N failures, N errors, N skips`), which judge the run as a whole",
	},
	Env: []string{"`TESTOPTS=-v`, which rake's test task passes to minitest"},
	Config: []ConfigFile{
		{"Rakefile", []string{"Rake::TestTask (pattern, test_files, libs, options)"}},
		{"test_helper.rb", []string{"requires, Minitest hooks and reporters, module-level statements"}},
	},
	Markers: Markers{
		Skip:       []string{`^\s*skip\b`},
		ExpectFail: None("minitest has no expected-failure marker"),
		Focus:      []string{`^\s*focus\b`},
		Invert:     None("minitest has no inverted test"),
		Todo:       None("minitest has no todo marker: a test without assertions passes, which the semantic judge reads"),
	},
	Detect:    []string{`defined\?\(\s*Minitest\s*\)`, `rake_test_loader`, `ENV\[["']TESTOPTS`},
	NoTests:   []string{`\b0 runs, 0 assertions`},
	TestFiles: []string{"*_test.rb", "test_*.rb"},
	TestStart: []string{`^\s*def\s+test_`, `^\s*(test|it)\s+["']`},

	invoked: func(c Call) bool { return minitestAt.MatchString(c.Shell) },
	preset: func(c Call) (Preset, bool) {
		m := minitestAt.FindStringSubmatch(c.Shell)
		if strings.Contains(m[2], "rake") {
			return Preset{Runner: "minitest", Command: c.cmd, Env: []string{addTo(c.Environ, "TESTOPTS", "-v")}, Added: "TESTOPTS=-v", lines: &minitestLines{}}, true
		}
		if verboseFlag.MatchString(c.Shell) {
			return Preset{Runner: "minitest", Command: c.cmd, Added: "nothing (reads its -v lines)", lines: &minitestLines{}}, true
		}
		return Preset{Runner: "minitest", Command: c.rebuild(strings.TrimSpace(c.Shell)+" -v", append(append([]string(nil), c.Words...), "-v")), Added: "-v", lines: &minitestLines{}}, true
	},
	inProject: func(p Project) bool {
		if strings.Contains(p.Read("Rakefile"), "TestTask") {
			return true
		}
		for _, name := range p.Glob("test", "*_test.rb") {
			if strings.Contains(p.Read(name), "minitest") || strings.Contains(p.Read(name), "test_helper") {
				return true
			}
		}
		return false
	},
	lines: func(bool, string, string) lineReader { return &minitestLines{} },
	env:   func(environ []string) []string { return []string{addTo(environ, "TESTOPTS", "-v")} },
}

var (
	// minitestAt finds rake test, rails test or ruby -I... FILE at a
	// command position (group 2 is the words that run it).
	minitestAt     = atCommand(`(?:bundle\s+exec\s+)?(?:rake\s+test|rails\s+test|ruby\s+(?:-\S+\s+)*\S+_test\.rb)`)
	minitestLine   = lazyregexp.New(`^(\S+#\S+) = [\d.]+ s = ([.FES])$`)
	minitestTotals = lazyregexp.New(`^(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors`)
)

// minitestLines reads minitest's -v lines, tests named "Class/test_name",
// and its totals.
type minitestLines struct {
	lineFeed
	verdict map[string]string
	total   string
}

func (m *minitestLines) Write(p []byte) (int, error) { return m.feed(p, m.line) }

func (m *minitestLines) line(b []byte, long bool) {
	if long {
		return
	}
	s := strings.TrimRight(string(b), " \r")
	if r := minitestLine.FindStringSubmatch(s); r != nil {
		m.verdict = result(m.verdict, strings.Replace(r[1], "#", "/", 1), map[string]string{".": "pass", "S": "skip"}[r[2]])
		return
	}
	if r := minitestTotals.FindStringSubmatch(s); r != nil {
		m.total = "fail"
		if r[2] == "0" && r[3] == "0" && r[1] != "0" {
			m.total = "pass"
		}
	}
}

func (m *minitestLines) run() TestRun {
	m.lines.End(m.line)
	r := runOf(len(m.verdict) > 0 || m.total != "", m.verdict, "pass", "skip")
	if len(m.verdict) == 0 { // totals only: the run is judged as a whole
		switch m.total {
		case "pass":
			r.WholePassed = []string{AllTests}
		case "fail":
			r.WholeFailed = []string{AllTests}
		}
	}
	return r
}
