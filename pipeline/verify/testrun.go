package verify

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/text"
)

// TestRun is what a verification's test report said: the tests that
// passed, were skipped and failed, each named "package/Test" (go test
// -json) or "classname/name" (JUnit XML). Found tells that a report was
// read at all: without one nothing is known about the tests.
type TestRun struct {
	Found                   bool
	Passed, Skipped, Failed []string
	// WholePassed and WholeFailed are the groups (Go packages) whose
	// output showed only their verdict as a whole, not their tests' (go
	// test without -v prints "ok PACKAGE"): their tests are judged at
	// that granularity ([TestRun.Whole]).
	WholePassed, WholeFailed []string
}

// Ran is the number of tests (and of groups judged as a whole) that ran
// (passed or failed).
func (r TestRun) Ran() int {
	return len(r.Passed) + len(r.Failed) + len(r.WholePassed) + len(r.WholeFailed)
}

// AllTests is the group of a run judged as a whole by its totals
// (unittest without -v: "Ran 3 tests", "OK").
const AllTests = "*"

// Whole is the verdict of the group a test belongs to, when the output
// showed only the group's: "pass", "fail", or "" when the test's group
// was not judged as a whole.
func (r TestRun) Whole(test string) string {
	for _, w := range []struct {
		groups []string
		v      string
	}{{r.WholeFailed, "fail"}, {r.WholePassed, "pass"}} {
		for _, g := range w.groups {
			if g == AllTests || strings.HasPrefix(test, g+"/") {
				return w.v
			}
		}
	}
	return ""
}

// maxEventLine bounds a go test -json line the reader parses.
const maxEventLine = 64 << 10

// goTestJSON reads go test -json events from a command's output, written
// in chunks; other lines are ignored. It keeps each test's last verdict.
type goTestJSON struct {
	lineFeed
	found   bool
	verdict map[string]string
}

// Write implements io.Writer; it never fails.
func (g *goTestJSON) Write(p []byte) (int, error) { return g.feed(p, g.event) }

func (g *goTestJSON) event(line []byte, long bool) {
	t := bytes.TrimSpace(line)
	if long || len(t) == 0 || t[0] != '{' || !bytes.Contains(t, []byte(`"Action"`)) {
		return
	}
	var ev struct{ Action, Package, Test string }
	if json.Unmarshal(t, &ev) != nil || ev.Action == "" {
		return
	}
	g.found = true
	if ev.Test == "" {
		return
	}
	switch ev.Action {
	case "pass", "fail", "skip":
		if g.verdict == nil {
			g.verdict = map[string]string{}
		}
		g.verdict[ev.Package+"/"+ev.Test] = ev.Action
	}
}

// run is what the events said.
func (g *goTestJSON) run() TestRun {
	g.lines.End(g.event)
	return runOf(g.found, g.verdict, "pass", "skip")
}

// runOf is the run whose tests ended as verdict says (test name to the
// runner's word): pass and skip are the runner's words for a passed and a
// skipped test; any other word is a failure.
func runOf(found bool, verdict map[string]string, pass, skip string) TestRun {
	r := TestRun{Found: found}
	for name, v := range verdict {
		switch v {
		case pass:
			r.Passed = append(r.Passed, name)
		case skip:
			r.Skipped = append(r.Skipped, name)
		default:
			r.Failed = append(r.Failed, name)
		}
	}
	r.sort()
	return r
}

func (r *TestRun) sort() {
	for _, l := range []*[]string{&r.Passed, &r.Skipped, &r.Failed, &r.WholePassed, &r.WholeFailed} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
}

// ParseJUnit reads a JUnit XML report (<testsuites> or one <testsuite>).
func ParseJUnit(data []byte) (TestRun, error) {
	type testcase struct {
		Name      string    `xml:"name,attr"`
		Classname string    `xml:"classname,attr"`
		Skipped   *struct{} `xml:"skipped"`
		Failure   *struct{} `xml:"failure"`
		Error     *struct{} `xml:"error"`
	}
	type suite struct {
		Cases  []testcase `xml:"testcase"`
		Suites []suite    `xml:"testsuite"`
	}
	var root suite
	if err := xml.Unmarshal(data, &root); err != nil {
		return TestRun{}, fmt.Errorf("JUnit report: %w", err)
	}
	r := TestRun{Found: true}
	var walk func(s suite)
	walk = func(s suite) {
		for _, c := range s.Cases {
			name := c.Classname + "/" + c.Name
			switch {
			case c.Skipped != nil:
				r.Skipped = append(r.Skipped, name)
			case c.Failure != nil || c.Error != nil:
				r.Failed = append(r.Failed, name)
			default:
				r.Passed = append(r.Passed, name)
			}
		}
		for _, sub := range s.Suites {
			walk(sub)
		}
	}
	walk(root)
	r.sort()
	return r, nil
}

// goText writes the text of go test -json events (their Output, which is
// what go test -v prints) to out, and other lines as they are: what the
// log and output_contains read when ralph-ci added -json to a command.
type goText struct {
	lineFeed
	out io.Writer
}

// Write implements io.Writer; it never fails.
func (g *goText) Write(p []byte) (int, error) { return g.feed(p, g.line) }

func (g *goText) line(line []byte, long bool) {
	t := bytes.TrimSpace(line)
	if !long && len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"Action"`)) {
		var ev struct{ Action, Output string }
		if json.Unmarshal(t, &ev) == nil && ev.Action != "" {
			if ev.Output != "" {
				_, _ = io.WriteString(g.out, ev.Output)
			}
			return
		}
	}
	_, _ = g.out.Write(line)
	_, _ = io.WriteString(g.out, "\n")
}

// Flush writes an unterminated last line.
func (g *goText) Flush() { g.lines.End(g.line) }

// lineFeed splits a command's output, written in chunks, into lines of
// at most maxEventLine bytes for a reader's line method.
type lineFeed struct{ lines text.Lines }

// feed writes p to line, one line at a time; it never fails.
func (f *lineFeed) feed(p []byte, line func(b []byte, long bool)) (int, error) {
	f.lines.Max = maxEventLine
	f.lines.Write(p, line)
	return len(p), nil
}
