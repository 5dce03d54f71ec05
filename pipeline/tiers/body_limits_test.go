package tiers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A checkpoint comment never exceeds GitHub's 65,536 characters, whatever
// the variable parts hold, and its marker still reads back.
func TestCommentBodyFitsGitHub(t *testing.T) {
	type testCase struct {
		name  string
		spec  string
		slice Slice
		rec   Record
		cut   bool // the shown text is cut, with its note
	}
	longLog := make([]Rejection, 5000)
	for i := range longLog {
		longLog[i] = Rejection{Attempt: i + 1, Feedback: strings.Repeat("no ", 700), Classification: TestGap, ActionTaken: "sent back"}
	}
	pending := Present(Record{}, 7, "0123456789abcdef")
	escalated := pending
	escalated.Status, escalated.RejectionLog, escalated.RejectionCount = StatusEscalated, longLog, 3
	rework := pending
	rework.Status, rework.RejectionLog, rework.RejectionCount, rework.Route = StatusRework, longLog, 2, "test_gap"
	run := func(t *testing.T, tc testCase) {
		body := CommentBody(tc.spec, tc.slice, tc.rec)
		if n := utf8.RuneCountInString(body); n > MaxCommentChars || len(body) > MaxCommentChars {
			t.Fatalf("body has %d characters (%d bytes), want at most %d", n, len(body), MaxCommentChars)
		}
		m, err := ParseMarker(body)
		if err != nil || m.Spec != tc.spec || m.Record.Status != tc.rec.Status || m.Record.RejectionCount != tc.rec.RejectionCount {
			t.Fatalf("marker: %+v, %v", m, err)
		}
		if got := strings.Contains(body, "[... cut: the full text is in the ralph-ci report]"); got != tc.cut {
			t.Errorf("cut note shown: %v, want %v", got, tc.cut)
		}
	}
	for _, tc := range []testCase{
		{name: "title of backticks", spec: "specs/a.spec.md", slice: Slice{ID: "a", Name: strings.Repeat("`", 120000)}, rec: pending, cut: true},
		{name: "criteria of backticks", spec: "specs/a.spec.md", slice: Slice{ID: "a", Name: "A", Criteria: []string{strings.Repeat("`", 30000), strings.Repeat("`", 30001)}}, rec: pending, cut: true},
		{name: "escalation with a long log", spec: "specs/a.spec.md", slice: Slice{ID: "a", Name: "A"}, rec: escalated, cut: true},
		{name: "rework with a long log in the marker", spec: "specs/a.spec.md", slice: Slice{ID: "a", Name: "A"}, rec: rework},
		{name: "long spec path", spec: "specs/" + strings.Repeat("`é/", 1300) + "a.spec.md", slice: Slice{ID: "a", Name: strings.Repeat("x", 50000)}, rec: pending, cut: true},
		{name: "small stays whole", spec: "specs/a.spec.md", slice: Slice{ID: "a", Name: "A", Criteria: []string{"x"}}, rec: pending},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// A spec file name that is not UTF-8 keeps a stable marker: the comment
// reads back with the exact name, so the same comment is found (and not
// flagged as damaged) on every run.
func TestMarkerOfNonUTF8SpecName(t *testing.T) {
	spec := "specs/caf\xe9-\xff.spec.md"
	rec := Present(Record{}, 7, "0123456789abcdef")
	body := CommentBody(spec, Slice{ID: "a", Name: "A"}, rec)
	m, err := ParseMarker(body)
	if err != nil || m.Spec != spec {
		t.Fatalf("ParseMarker = %q, %v; want spec %q", m.Spec, err, spec)
	}
	if again := CommentBody(m.Spec, Slice{ID: "a", Name: "A"}, m.Record); again != body {
		t.Fatalf("the body changed across runs:\n%s\n---\n%s", body, again)
	}
}
