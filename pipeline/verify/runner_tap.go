package verify

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// The generic reader of TAP (the Test Anything Protocol: node --test
// --test-reporter=tap, tape, bats --tap, prove's producers), named in
// test_report: a file the command writes.
var tapReport = Runner{
	Name:     "tap",
	Commands: None("any command that writes TAP: the file is named in test_report"),
	Files:    None("the report is named in test_report"),
	Report:   []string{"the file test_report names, when it is TAP (`TAP version`, a plan `1..N`, or `ok`/`not ok` lines): each `ok`/`not ok` line, at any depth of subtests, named by its description; `# SKIP` and `# TODO` read as skipped, `Bail out!` as a failure"},
	Env:      None("the command is configured to write the report"),
	Config:   []ConfigFile{{"test_report", []string{"the config key itself, guarded with the spec's front matter or the config file"}}},
	Markers: Markers{
		Skip:       None("the producer's own markers; a `# SKIP` line does not pass"),
		ExpectFail: None("the producer's own"),
		Focus:      None("the producer's own"),
		Invert:     None("the producer's own"),
		Todo:       None("the producer's own; a `# TODO` line does not pass"),
	},
	Detect:    None("the producer's own"),
	NoTests:   []string{`^1\.\.0`},
	TestFiles: None("the producer's own"),
	TestStart: None("the producer's own"),
}

var (
	tapLine  = lazyregexp.New(`^\s*(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*)$`)
	tapStart = lazyregexp.New(`(?m)\A\s*(TAP version \d+|1\.\.\d+|(not )?ok\b)`)
	tapDir   = lazyregexp.New(`(?i)\s+#\s*(skip|todo)\b.*$`)
)

// IsTAP tells a report written in TAP.
func IsTAP(data []byte) bool { return tapStart.Match(data) }

// ParseTAP reads a TAP report: every "ok" and "not ok" line, subtests
// included, named by its description (the test's number when it has
// none); a # SKIP or # TODO directive counts as skipped, "Bail out!" as
// a failed test of its own.
func ParseTAP(data []byte) TestRun {
	verdict := map[string]string{}
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimRight(string(raw), " \r")
		if strings.HasPrefix(strings.TrimSpace(line), "Bail out!") {
			verdict = result(verdict, "Bail out!", "fail")
			continue
		}
		m := tapLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, v := m[2], map[string]string{"ok": "pass", "not ok": "fail"}[m[1]]
		if d := tapDir.FindStringSubmatch(name); d != nil {
			name, v = strings.TrimSpace(name[:len(name)-len(d[0])]), "skip"
		}
		if name == "" {
			name = "line " + strconv.Itoa(i+1)
		}
		verdict = result(verdict, name, v)
	}
	return runOf(true, verdict, "pass", "skip")
}
