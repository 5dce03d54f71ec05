package junit_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters/junit"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

func encode(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := junit.Encode(&buf, r); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	got := encode(t, reportstest.Report())
	golden.Check(t, "report.golden.xml", got)
}

// TestSchema validates reports against Jenkins' junit-10.xsd with xmllint
// (Debian's libxml2-utils; .ci/run installs it).
func TestSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("RALPH_REQUIRE_XMLLINT") != "" {
			t.Fatal("xmllint not on PATH; .ci/run installs it (apt-get install libxml2-utils)")
		}
		t.Skip("xmllint not on PATH (apt-get install libxml2-utils)")
	}
	empty := reportstest.Report()
	empty.Specs = nil
	hostile := reportstest.Report()
	hostile.Specs[0].Path = "specs/\x01weird\x7f<&>\"'.spec.md"
	hostile.Specs[0].Title = "\xff\xfe broken utf-8 \uFFFE"
	hostile.Specs[1].Outcome = "something-new"
	hostile.Specs[2].Reason = "end ]]> of CDATA\x1b[1m, bell \a, CR \r, NUL \x00"
	hostile.Specs[2].Rotations[0].Reason = "]]>]]><![CDATA[ x"
	for name, r := range map[string]*report.Report{"sample": reportstest.Report(), "empty": empty, "hostile": hostile} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "junit.xml")
			if err := (&junit.JUnit{Path: file}).Report(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), file).CombinedOutput()
			if err != nil {
				t.Errorf("xmllint: %v\n%s", err, out)
			}
		})
	}
}

// The attributes dorny/test-reporter (java-junit) and
// mikepenz/action-junit-report read, decoded the way they find them.
type readerView struct {
	Time   string `xml:"time,attr"`
	Suites []struct {
		Name  string `xml:"name,attr"`
		File  string `xml:"file,attr"`
		Time  string `xml:"time,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestReadersSeeSpecs(t *testing.T) {
	var doc readerView
	if err := xml.Unmarshal(encode(t, reportstest.Report()), &doc); err != nil {
		t.Fatal(err)
	}
	type want struct {
		file, class     string
		failed, skipped bool
		messagePrefix   string
		stageCases      int
	}
	tests := []want{
		{file: "PROMPT.md", class: "PROMPT.md", stageCases: 2},
		{file: "specs/api/auth.spec.md", class: "specs/api/auth.spec.md", failed: true, messagePrefix: "stuck: at stage coder, counter 0/3; returned STUCK 3 times in a row: cannot reach db\uFFFD", stageCases: 1},
		// The coder stage plus its two multi_stage verification stages.
		{file: "specs/api/users.spec.md", class: "specs/api/users.spec.md", failed: true, messagePrefix: "failed: ", stageCases: 3},
		{file: "specs/web/ui.spec.md", class: "specs/web/ui.spec.md", failed: true, messagePrefix: "unverified: at stage coder, counter 1/3", stageCases: 1},
		{file: ".ralph/specs/billing.spec.md", class: ".ralph/specs/billing.spec.md", skipped: true},
	}
	if doc.Time != "600.000" || len(doc.Suites) != len(tests) {
		t.Fatalf("testsuites time=%q with %d suites, want 600.000 and %d", doc.Time, len(doc.Suites), len(tests))
	}
	for i, w := range tests {
		s := doc.Suites[i]
		if s.Name != w.file || s.File != w.file {
			t.Errorf("suite %d: name %q file %q, want %q", i, s.Name, s.File, w.file)
		}
		if len(s.Cases) != 1+w.stageCases || s.Tests != len(s.Cases) {
			t.Errorf("%s: %d testcases (tests=%d), want %d", w.file, len(s.Cases), s.Tests, 1+w.stageCases)
			continue
		}
		c := s.Cases[0]
		if c.Name != "verification" || c.Classname != w.class || c.Time == "" {
			t.Errorf("%s: testcase %q classname %q time %q, want verification %q", w.file, c.Name, c.Classname, c.Time, w.class)
		}
		if (c.Failure != nil) != w.failed || (c.Skipped != nil) != w.skipped {
			t.Errorf("%s: failure %v skipped %v, want %v %v", w.file, c.Failure != nil, c.Skipped != nil, w.failed, w.skipped)
		}
		if c.Failure != nil && (!strings.HasPrefix(c.Failure.Message, w.messagePrefix) || !strings.Contains(c.Failure.Text, w.file)) {
			t.Errorf("%s: failure message %q text %q, want message starting %q", w.file, c.Failure.Message, c.Failure.Text, w.messagePrefix)
		}
	}
	// Jenkins and GitLab key a test by classname + name: no two testcases
	// of the document share both (two specs in one folder included).
	seen := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Classname != s.File {
				t.Errorf("%s: testcase %q classname %q, want the spec path", s.File, c.Name, c.Classname)
			}
			key := c.Classname + "\x00" + c.Name
			if other, dup := seen[key]; dup {
				t.Errorf("testcase classname=%q name=%q in %s and %s", c.Classname, c.Name, other, s.File)
			}
			seen[key] = s.File
		}
	}
	// A verification stage testcase carries its own last verdict.
	users := doc.Suites[2].Cases
	if n := len(users); n != 4 || users[2].Name != "coder stage, verification unit_tests" || users[2].Failure != nil ||
		users[3].Name != "coder stage, verification no_regressions" || users[3].Failure == nil || users[3].Failure.Message != "Command exited with 1, expected 0" {
		t.Errorf("verification stage testcases: %+v", users)
	}
}
