package junit

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

// viaEncodingXML is how the document was written before writeDoc: the
// reference writeDoc must match byte for byte.
func viaEncodingXML(t testing.TB, doc *testsuites) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func viaWriteDoc(t testing.TB, doc *testsuites) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeDoc(&buf, doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// nastyDoc puts s in every string of a document with each kind of
// element: present and absent pointers, empty and full lists, omitted
// and kept empty attributes, empty and full CDATA.
func nastyDoc(s string) *testsuites {
	res := &result{Type: s, Message: s, Text: s}
	return &testsuites{Name: s, Tests: 3, Failures: -1, Time: s, Suites: []testsuite{
		{Name: s, Time: s, Timestamp: s, File: s, Properties: &properties{List: []property{{s, s}, {"", ""}}},
			Cases: []testcase{
				{Name: s, Classname: s, Time: s, Failure: res, SystemOut: &xmlText{Text: s}},
				{Name: s, Skipped: &result{Message: s}},
				{Name: s, Failure: &result{}, Skipped: res, SystemOut: &xmlText{}},
				{},
			}},
		{Name: s, Properties: &properties{}},
		{},
	}}
}

var nastyStrings = []string{
	"", "plain", `a "quoted" 'word' & <tag> >`, "tab\tnew\nline\rcr", "]]>", "a]]>b]]>]]]>c", "]]", "<![CDATA[x]]>",
	"\x00\x01\x1f\x7f", "\xff\xfe invalid utf-8 \xc3", "\uFFFD real replacement", "\uFFFE\uFFFF", "\ud7ff\ue000",
	"emoji 🚀 and 中文", "\U0010FFFF", "&amp; already escaped &#34;",
}

// writeDoc writes what encoding/xml writes, for the report the golden
// file pins and for documents full of what XML must escape or cannot hold.
func TestWriteMatchesEncodingXML(t *testing.T) {
	doc := build(reportstest.Report())
	if got, want := viaWriteDoc(t, &doc), viaEncodingXML(t, &doc); !bytes.Equal(got, want) {
		t.Fatalf("the sample report differs:\n got: %s\nwant: %s", got, want)
	}
	for _, s := range nastyStrings {
		doc := nastyDoc(s)
		if got, want := viaWriteDoc(t, doc), viaEncodingXML(t, doc); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got: %s\nwant: %s", s, got, want)
		}
	}
	if got, want := viaWriteDoc(t, &testsuites{}), viaEncodingXML(t, &testsuites{}); !bytes.Equal(got, want) {
		t.Errorf("an empty document:\n got: %s\nwant: %s", got, want)
	}
}

// FuzzWriteDoc holds writeDoc to encoding/xml on any string.
func FuzzWriteDoc(f *testing.F) {
	for _, s := range nastyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := nastyDoc(s)
		if got, want := viaWriteDoc(t, doc), viaEncodingXML(t, doc); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got: %s\nwant: %s", s, got, want)
		}
	})
}
