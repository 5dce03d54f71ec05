package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// OutputReport is the test_report value that names the command's own
// output as the report: go test -json events, or the lines of Rust's test
// harness (cargo test).
const OutputReport = "-"

// maxReport bounds a report file ralph-ci reads (and each file of a
// report directory).
const maxReport = 64 << 20

// ReadReport reads the test report at path: a JUnit XML file (pytest
// --junitxml, jest-junit, Maven Surefire, Gradle), a directory of them
// (target/surefire-reports, build/test-results/test), or the JSON report
// of jest or vitest (--json --outputFile). The format is told by the
// content. Test names of a JSON report are relative to root.
func ReadReport(path, root string) (TestRun, error) {
	// The tests that wrote the report ran as the agent's user, which may
	// have put a link there: it is read inside the tree, or inside the
	// folder ralph-ci made for a preset's report, and nowhere else.
	lent := root
	if rel, err := filepath.Rel(root, path); err != nil || !filepath.IsLocal(rel) {
		lent = filepath.Dir(path)
	}
	tree, err := safefile.OpenTree(lent)
	if err != nil {
		return TestRun{}, err
	}
	defer tree.Close()
	fi, err := tree.Stat(path)
	if err != nil {
		return TestRun{}, err
	}
	if !fi.IsDir() {
		data, err := tree.Read(path, maxReport)
		if err != nil {
			return TestRun{}, err
		}
		return parseReport(data, root)
	}
	entries, err := tree.ReadDir(path)
	if err != nil {
		return TestRun{}, err
	}
	all := TestRun{Found: true}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".xml") {
			continue
		}
		data, err := tree.Read(filepath.Join(path, e.Name()), maxReport)
		if err != nil {
			return TestRun{}, err
		}
		r, err := ParseJUnit(data)
		if err != nil {
			return TestRun{}, fmt.Errorf("%s: %w", e.Name(), err)
		}
		all.merge(r)
	}
	all.sort()
	return all, nil
}

func parseReport(data []byte, root string) (TestRun, error) {
	t := bytes.TrimSpace(data)
	if IsTAP(t) {
		return ParseTAP(t), nil
	}
	if len(t) > 0 && t[0] == '{' {
		if bytes.Contains(t, []byte(`"examples"`)) && !bytes.Contains(t, []byte(`"testResults"`)) {
			return ParseRSpecJSON(t)
		}
		return ParseJestJSON(t, root)
	}
	return ParseJUnit(data)
}

// merge adds o's tests to r.
func (r *TestRun) merge(o TestRun) {
	r.Found = r.Found || o.Found
	r.Passed = append(r.Passed, o.Passed...)
	r.Skipped = append(r.Skipped, o.Skipped...)
	r.Failed = append(r.Failed, o.Failed...)
	r.WholePassed = append(r.WholePassed, o.WholePassed...)
	r.WholeFailed = append(r.WholeFailed, o.WholeFailed...)
}

// Merge is r and o together, sorted: the tests of several reports.
func (r TestRun) Merge(o TestRun) TestRun {
	out := TestRun{Found: r.Found}
	out.merge(r)
	out.merge(o)
	out.sort()
	return out
}

// ParseJestJSON reads the JSON report of jest or vitest (the same shape):
// each assertion is named "FILE/FULL NAME", FILE relative to root. A test
// file that failed to run (a syntax error, a module that does not load)
// reports none of its tests: they are missing, not passed. pending,
// skipped, disabled and todo tests count as skipped.
func ParseJestJSON(data []byte, root string) (TestRun, error) {
	var doc struct {
		TestResults *[]struct {
			Name             string `json:"name"`
			AssertionResults []struct {
				FullName       string   `json:"fullName"`
				Title          string   `json:"title"`
				AncestorTitles []string `json:"ancestorTitles"`
				Status         string   `json:"status"`
			} `json:"assertionResults"`
		} `json:"testResults"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return TestRun{}, fmt.Errorf("JSON test report: %w", err)
	}
	if doc.TestResults == nil {
		return TestRun{}, fmt.Errorf("JSON test report: no testResults (not a jest or vitest --json report)")
	}
	r := TestRun{Found: true}
	for _, file := range *doc.TestResults {
		name := relTo(file.Name, root) // jest names files by their absolute, real path
		for _, a := range file.AssertionResults {
			full := a.FullName
			if full == "" {
				full = strings.Join(append(slices.Clone(a.AncestorTitles), a.Title), " ")
			}
			id := name + "/" + full
			switch a.Status {
			case "passed":
				r.Passed = append(r.Passed, id)
			case "failed":
				r.Failed = append(r.Failed, id)
			default: // pending, skipped, disabled, todo, focused
				r.Skipped = append(r.Skipped, id)
			}
		}
	}
	r.sort()
	return r, nil
}

// libtest reads the output of Rust's test harness (cargo test), written in
// chunks: "test NAME ... ok|FAILED|ignored" under the "Running SOURCE" or
// "Doc-tests CRATE" line of each test binary. Tests are named
// "SOURCE/NAME" (tests/calc.rs/adds, src/lib.rs/tests::adds).
type libtest struct {
	lineFeed
	found   bool
	binary  string
	verdict map[string]string
}

var (
	libtestRunning = lazyregexp.New(`^\s*(?:Running (?:unittests )?(\S+)|Doc-tests (\S+))`)
	libtestHeader  = lazyregexp.New(`^running \d+ tests?$`)
	libtestLine    = lazyregexp.New(`^test (.+?) \.\.\. (ok|FAILED|ignored)\b`)
)

// Write implements io.Writer; it never fails.
func (l *libtest) Write(p []byte) (int, error) { return l.feed(p, l.line) }

func (l *libtest) line(line []byte, long bool) {
	if long {
		return
	}
	s := strings.TrimRight(string(line), "\r\n")
	if m := libtestRunning.FindStringSubmatch(s); m != nil {
		l.binary = m[1] + m[2]
		return
	}
	if libtestHeader.MatchString(s) {
		l.found = true
		return
	}
	m := libtestLine.FindStringSubmatch(s)
	if m == nil || !l.found {
		return
	}
	if l.verdict == nil {
		l.verdict = map[string]string{}
	}
	l.verdict[l.binary+"/"+m[1]] = m[2]
}

func (l *libtest) run() TestRun {
	l.lines.End(l.line)
	return runOf(l.found, l.verdict, "ok", "ignored")
}
