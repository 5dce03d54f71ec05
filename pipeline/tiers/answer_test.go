package tiers

import (
	"reflect"
	"testing"
)

func reply(text string) Answer { return Answer{Kind: KindReply, Author: "alice", Text: text} }

// TestReadCheckpointAnswer covers section 3's response interpretation and
// the rejection options chosen by 2/3.
func TestReadCheckpointAnswer(t *testing.T) {
	tests := []struct {
		in   Answer
		want Verdict
	}{
		{reply("1"), Verdict{Approve: true}},
		{reply(" yes\n"), Verdict{Approve: true}},
		{reply("YES"), Verdict{Approve: true}},
		{reply("Yes"), Verdict{Approve: true}},
		{reply("yes please"), Verdict{Classification: TestGap, Feedback: "yes please"}},
		{reply("11"), Verdict{Classification: TestGap, Feedback: "11"}},
		{reply("2 the total is wrong"), Verdict{Classification: ContractGap, Feedback: "the total is wrong"}},
		{reply("3) rounding is off"), Verdict{Classification: ImplementationGap, Feedback: "rounding is off"}},
		{reply("the button is blue"), Verdict{Classification: TestGap, Feedback: "the button is blue"}},
		{reply("no"), Verdict{Classification: TestGap, Feedback: "no"}},
		{Answer{Kind: KindReaction, Text: "+1"}, Verdict{Approve: true}},
		{Answer{Kind: KindReaction, Text: "-1"}, Verdict{Classification: TestGap, Feedback: "reaction -1"}},
		{Answer{Kind: KindLocal, Text: "1"}, Verdict{Approve: true}},
	}
	for _, tt := range tests {
		if got := ReadCheckpointAnswer(tt.in); got != tt.want {
			t.Errorf("%+v: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestReadEscalationAnswer: only 1, 2 or 3 is a choice.
func TestReadEscalationAnswer(t *testing.T) {
	tests := []struct {
		in   Answer
		want Choice
	}{
		{reply("1"), Choice{Option: 1}},
		{reply("2 start from the parser, then the totals"), Choice{Option: 2, Rest: "start from the parser, then the totals"}},
		{reply("3"), Choice{Option: 3}},
		{reply("4"), Choice{}},
		{reply("yes"), Choice{}},
		{reply(""), Choice{}},
		{Answer{Kind: KindReaction, Text: "+1"}, Choice{}},
	}
	for _, tt := range tests {
		if got := ReadEscalationAnswer(tt.in); got != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.in.Text, got, tt.want)
		}
	}
}

// TestRoute covers which checkpoint a reply applies to.
func TestRoute(t *testing.T) {
	a := Target{Spec: "specs/a.spec.md", ID: "a", Header: "ALL TESTS PASSING -- Slice a: A"}
	b := Target{Spec: "specs/b.spec.md", ID: "b", Header: "ALL TESTS PASSING -- Slice b: B"}
	tests := []struct {
		name     string
		body     string
		targets  []Target
		want     string
		wantText string
		ok       bool
	}{
		{"single open checkpoint", "1", []Target{a}, a.Spec, "1", true},
		{"several, unaddressed", "1", []Target{a, b}, "", "1", false},
		{"named by path", "specs/b.spec.md: 2 wrong total", []Target{a, b}, b.Spec, "2 wrong total", true},
		{"named by id", "a: yes", []Target{a, b}, a.Spec, "yes", true},
		{"quoted header", "> ALL TESTS PASSING -- Slice b: B\n\nyes", []Target{a, b}, b.Spec, "yes", true},
		{"quoted path", "> **ralph-ci checkpoint** · `specs/a.spec.md`\n3 needs rounding", []Target{a, b}, a.Spec, "3 needs rounding", true},
		// A spec (new in a pull request) whose id spells another spec's
		// path, listed first: the answer named for the path goes to
		// that path's spec, whatever the order.
		{"an id that shadows a path", "specs/a.spec.md: yes", []Target{{Spec: "specs/evil.spec.md", ID: "specs/a.spec.md"}, a}, a.Spec, "yes", true},
		{"quotes both", "> ALL TESTS PASSING -- Slice a: A\n> ALL TESTS PASSING -- Slice b: B\n1", []Target{a, b}, "", "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, text, ok := Route(tt.body, tt.targets)
			if ok != tt.ok || got.Spec != tt.want || text != tt.wantText {
				t.Errorf("got %q %q %v, want %q %q %v", got.Spec, text, ok, tt.want, tt.wantText, tt.ok)
			}
		})
	}
}

// TestMarkerRoundTrip: the record survives the comment; a damaged record
// still names its spec.
func TestMarkerRoundTrip(t *testing.T) {
	rec := Record{Status: StatusRework, SHA: "abc", PR: 3, CommentID: 9, RejectionCount: 1,
		RejectionLog: []Rejection{{Attempt: 1, Feedback: "--> <!-- x", Classification: TestGap, ActionTaken: "y"}}, AfterComment: 12, AfterReaction: 4}
	m, err := ParseMarker("hello\n" + FormatMarker(Marker{Spec: "specs/a b.spec.md", Record: rec}) + "\nbye")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Record, rec) || m.Spec != "specs/a b.spec.md" {
		t.Fatalf("got %+v", m)
	}
	m, err = ParseMarker("<!-- ralph-ci:checkpoint specs%2Fa.spec.md bm90IGpzb24= -->")
	if err == nil || m.Spec != "specs/a.spec.md" {
		t.Fatalf("damaged record: %+v, %v", m, err)
	}
	if _, err := ParseMarker("no marker"); err != ErrNoMarker {
		t.Fatalf("got %v", err)
	}
}
