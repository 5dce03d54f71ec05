// Package junit writes a ralph-ci report as JUnit XML, the format every CI
// system's test tab reads. The document validates against Jenkins'
// junit-10.xsd and reads in dorny/test-reporter (java-junit) and
// mikepenz/action-junit-report.
//
// Layout. junit-10.xsd allows a file attribute and properties on
// <testsuite> only, never on <testcase>, so each spec is one testsuite:
//
//	<testsuites name="ralph-ci run" tests= failures= errors= time=>   the run
//	  <testsuite name=SPEC file=SPEC ...>                             one per spec
//	    <properties> title tier outcome counter stage rotations
//	                 total_rotations cost_usd </properties>
//	    <testcase name="verification" classname=SPEC>                 the spec's verdict
//	      <failure>/<skipped>, <system-out> the rotation log
//	    <testcase name="coder stage" classname=SPEC>                  one per stage that ran
//	    <testcase name="qa stage, verification unit" ...>             one per multi_stage
//	                                                                  verification stage that ran, its last verdict
//
// file is the spec's path relative to the repository root; the GitHub
// reporters read it from the testsuite when a testcase has none.
// classname is the spec's path too ("specs/api/auth.spec.md", "PROMPT.md"):
// Jenkins and GitLab key a test by classname + name, so two specs' "coder
// stage" testcases must not share a classname.
//
// Outcomes. A verified spec's verification passes; a failed, stuck or
// pending (unverified) one has a <failure> whose type is the outcome and
// whose message is the reason; an awaiting one (verified 3/3, waiting for
// its human checkpoint) is <skipped>. A stage testcase passes unless it is
// the spec's current stage and the spec is not done: then it fails with
// the spec (failed, stuck) or is skipped as unfinished (pending). Times are
// the agents' durations in seconds; text from agents is cleaned
// (text.CleanText) because XML 1.0 forbids most control characters.
package junit

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
)

// JUnit is the Reporter that writes the JUnit XML file at Path.
type JUnit struct {
	Path string
}

var _ reporters.Reporter = (*JUnit)(nil)

// Report writes r to j.Path atomically, creating its folder.
func (j *JUnit) Report(ctx context.Context, r *report.Report) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := reporters.WriteFile(j.Path, func(w io.Writer) error { return Encode(w, r) }); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

// Encode writes r as an indented JUnit XML document to w.
func Encode(w io.Writer, r *report.Report) error {
	if r == nil {
		return fmt.Errorf("junit: no report")
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	doc := build(r)
	if err := writeDoc(w, &doc); err != nil {
		return fmt.Errorf("junit: encode: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

// The XML document. Field order is element order; attributes follow the
// names junit-10.xsd declares.
type (
	testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Time     string      `xml:"time,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	testsuite struct {
		Name       string      `xml:"name,attr"`
		Tests      int         `xml:"tests,attr"`
		Failures   int         `xml:"failures,attr"`
		Errors     int         `xml:"errors,attr"`
		Skipped    int         `xml:"skipped,attr"`
		Time       string      `xml:"time,attr"`
		Timestamp  string      `xml:"timestamp,attr,omitempty"`
		File       string      `xml:"file,attr"`
		Properties *properties `xml:"properties"`
		Cases      []testcase  `xml:"testcase"`
	}
	properties struct {
		List []property `xml:"property"`
	}
	property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *result  `xml:"failure"`
		Skipped   *result  `xml:"skipped"`
		SystemOut *xmlText `xml:"system-out"`
	}
	result struct {
		Type    string `xml:"type,attr,omitempty"`
		Message string `xml:"message,attr"`
		Text    string `xml:",cdata"`
	}
	// xmlText is multi-line content, kept readable in a CDATA section.
	xmlText struct {
		Text string `xml:",cdata"`
	}
)
