package tiers

import (
	"strings"
	"testing"
)

// FuzzMarker: reading any comment body never panics, and a marker written
// for any spec name and feedback reads back with that exact spec name.
func FuzzMarker(f *testing.F) {
	f.Add("specs/a.spec.md", "the total is wrong", []byte("<!-- ralph-ci:checkpoint specs%2Fa.spec.md e30= -->"))
	f.Add("specs/caf\xe9.spec.md", "--> <!-- x", []byte("<!-- ralph-ci:checkpoint %ZZ !!! -->"))
	f.Add("", "", []byte("<!-- ralph-ci:checkpoint  -->"))
	f.Fuzz(func(t *testing.T, spec, feedback string, body []byte) {
		_, _ = ParseMarker(string(body))
		_ = HasMarker(string(body))
		if spec == "" {
			return
		}
		rec := Record{Status: StatusRework, RejectionCount: 1, RejectionLog: []Rejection{{Attempt: 1, Feedback: feedback}}}
		m, err := ParseMarker("before\n" + FormatMarker(Marker{Spec: spec, Record: rec}) + "\nafter")
		if err != nil || m.Spec != spec || m.Record.RejectionCount != 1 || len(m.Record.RejectionLog) != 1 {
			t.Fatalf("marker of %q: %+v, %v", spec, m, err)
		}
		if got := m.Record.RejectionLog[0].Feedback; got != jsonString(feedback) {
			t.Fatalf("feedback %q read back as %q", feedback, got)
		}
	})
}

// FuzzAnswers: any reply or reaction text is read without panic, into one
// of the answers the tiers spec allows.
func FuzzAnswers(f *testing.F) {
	f.Add("1", KindReply, "specs/a.spec.md")
	f.Add("2 the total is wrong\n> ALL TESTS PASSING -- Slice a: A", KindReply, "a")
	f.Add("+1", KindReaction, "")
	f.Add("specs/a.spec.md: 3 more detail", KindReply, "specs/a.spec.md")
	f.Fuzz(func(t *testing.T, text, kind, spec string) {
		a := Answer{ID: 1, Kind: kind, Author: "alice", Text: text}
		v := ReadCheckpointAnswer(a)
		if v.Approve && v.Classification != "" {
			t.Fatalf("%q: an approval with a classification %q", text, v.Classification)
		}
		if c := ReadEscalationAnswer(a); c.Option < 0 || c.Option > 3 {
			t.Fatalf("%q: escalation option %d", text, c.Option)
		}
		targets := []Target{{Spec: spec, Header: "ALL TESTS PASSING -- Slice a: A", ID: "a", CommentID: 1},
			{Spec: "specs/b.spec.md", Header: "ALL TESTS PASSING -- Slice b: B", ID: "b", CommentID: 2}}
		if tg, own, ok := Route(text, targets); ok && (tg.CommentID == 0 || strings.Count(own, "\n") > strings.Count(text, "\n")) {
			t.Fatalf("%q: routed to %+v with text %q", text, tg, own)
		}
	})
}
