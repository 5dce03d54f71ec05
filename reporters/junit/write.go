package junit

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// writeDoc writes doc exactly as encoding/xml's Encoder with Indent("",
// "  ") does (TestWriteMatchesEncodingXML holds it to that), without
// reflection: a run over a thousand specs spent more CPU encoding its
// JUnit report than running the agent. The elements with child elements
// end on a line of their own; empty elements are not self-closed; nil
// pointers and empty omitempty attributes are left out; attribute values
// are escaped as encoding/xml escapes them and character data goes in
// CDATA sections.
func writeDoc(w io.Writer, doc *testsuites) error {
	x := xmlWriter{w: bufio.NewWriterSize(w, 64<<10)}
	x.start("testsuites")
	x.attr("name", doc.Name)
	x.intAttr("tests", doc.Tests)
	x.intAttr("failures", doc.Failures)
	x.intAttr("errors", doc.Errors)
	x.attr("time", doc.Time)
	x.close()
	for i := range doc.Suites {
		x.suite(&doc.Suites[i])
	}
	x.end("testsuites", len(doc.Suites) > 0)
	return x.w.Flush()
}

// xmlWriter writes indented XML to a buffer (its write errors come back
// from Flush).
type xmlWriter struct {
	w     *bufio.Writer
	depth int
	first bool // some element was started: the next starts on a new line
}

func (x *xmlWriter) suite(ts *testsuite) {
	x.start("testsuite")
	x.attr("name", ts.Name)
	x.intAttr("tests", ts.Tests)
	x.intAttr("failures", ts.Failures)
	x.intAttr("errors", ts.Errors)
	x.intAttr("skipped", ts.Skipped)
	x.attr("time", ts.Time)
	if ts.Timestamp != "" {
		x.attr("timestamp", ts.Timestamp)
	}
	x.attr("file", ts.File)
	x.close()
	if ts.Properties != nil {
		x.start("properties")
		x.close()
		for _, p := range ts.Properties.List {
			x.start("property")
			x.attr("name", p.Name)
			x.attr("value", p.Value)
			x.close()
			x.end("property", false)
		}
		x.end("properties", len(ts.Properties.List) > 0)
	}
	for i := range ts.Cases {
		x.testcase(&ts.Cases[i])
	}
	x.end("testsuite", ts.Properties != nil || len(ts.Cases) > 0)
}

func (x *xmlWriter) testcase(tc *testcase) {
	x.start("testcase")
	x.attr("name", tc.Name)
	x.attr("classname", tc.Classname)
	x.attr("time", tc.Time)
	x.close()
	x.result("failure", tc.Failure)
	x.result("skipped", tc.Skipped)
	if tc.SystemOut != nil {
		x.start("system-out")
		x.close()
		x.cdata(tc.SystemOut.Text)
		x.end("system-out", false)
	}
	x.end("testcase", tc.Failure != nil || tc.Skipped != nil || tc.SystemOut != nil)
}

func (x *xmlWriter) result(name string, r *result) {
	if r == nil {
		return
	}
	x.start(name)
	if r.Type != "" {
		x.attr("type", r.Type)
	}
	x.attr("message", r.Message)
	x.close()
	x.cdata(r.Text)
	x.end(name, false)
}

// start opens <name on a new line at the current depth.
func (x *xmlWriter) start(name string) {
	if x.first {
		x.w.WriteByte('\n')
	}
	x.first = true
	for range x.depth {
		x.w.WriteString("  ")
	}
	x.depth++
	x.w.WriteByte('<')
	x.w.WriteString(name)
}

// close ends a start tag.
func (x *xmlWriter) close() { x.w.WriteByte('>') }

// end closes the element: on a line of its own when it has children.
func (x *xmlWriter) end(name string, children bool) {
	x.depth--
	if children {
		x.w.WriteByte('\n')
		for range x.depth {
			x.w.WriteString("  ")
		}
	}
	x.w.WriteString("</")
	x.w.WriteString(name)
	x.w.WriteByte('>')
}

func (x *xmlWriter) intAttr(name string, v int) {
	x.w.WriteByte(' ')
	x.w.WriteString(name)
	x.w.WriteString(`="`)
	x.w.WriteString(strconv.Itoa(v))
	x.w.WriteByte('"')
}

func (x *xmlWriter) attr(name, v string) {
	x.w.WriteByte(' ')
	x.w.WriteString(name)
	x.w.WriteString(`="`)
	x.escape(v)
	x.w.WriteByte('"')
}

// escape writes s as encoding/xml escapes an attribute's value: the
// markup characters and white space other than a space as references,
// and what XML cannot hold (and invalid UTF-8) as U+FFFD.
func (x *xmlWriter) escape(s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if inCharacterRange(r) && (r != utf8.RuneError || width > 1) {
				continue
			}
			esc = "\uFFFD"
		}
		x.w.WriteString(s[last : i-width])
		x.w.WriteString(esc)
		last = i
	}
	x.w.WriteString(s[last:])
}

// inCharacterRange is XML 1.0's Char production.
func inCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// cdata writes s in a CDATA section (nothing when s is empty), a "]]>" in
// it split across two sections.
func (x *xmlWriter) cdata(s string) {
	if s == "" {
		return
	}
	x.w.WriteString("<![CDATA[")
	for {
		before, after, ok := strings.Cut(s, "]]>")
		if !ok {
			break
		}
		x.w.WriteString(before)
		x.w.WriteString("]]]]><![CDATA[>")
		s = after
	}
	x.w.WriteString(s)
	x.w.WriteString("]]>")
}
