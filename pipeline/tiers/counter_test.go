package tiers

import (
	"strings"
	"testing"
)

const head = "bbbbbbbbbbbb"

// TestStory runs a checkpoint through three rejections, the escalation
// and each of its options, checking the counter invariants.
func TestStory(t *testing.T) {
	r := Present(Record{}, 5, head)
	if r.Status != StatusPending || r.RejectionCount != 0 {
		t.Fatalf("presented: %+v", r)
	}
	for i, text := range []string{"tests miss the 401", "2 the contract should say 403", "3 round to cents"} {
		eff := Apply(&r, reply(text), head)
		if !eff.Rejected || r.RejectionCount != i+1 || len(r.RejectionLog) != i+1 || r.RejectionLog[i].Attempt != i+1 {
			t.Fatalf("rejection %d: %+v %+v", i+1, eff, r)
		}
		if i < 2 {
			if r.Status != StatusRework || !eff.SentBack {
				t.Fatalf("rejection %d: %+v", i+1, r)
			}
			r = Present(r, 5, head) // verified 3/3 again
			if r.RejectionCount != i+1 {
				t.Fatal("re-presenting must keep the counter")
			}
		}
	}
	if r.Status != StatusEscalated || r.RejectionLog[1].Classification != ContractGap || r.RejectionLog[2].Feedback != "round to cents" {
		t.Fatalf("escalation: %+v", r)
	}
	esc := r
	eff := Apply(&r, reply("maybe"), head)
	if r.Status != StatusEscalated || r.Reprompt != InvalidEscalationChoice || eff.Ignored == "" {
		t.Fatalf("invalid choice: %+v", r)
	}
	if !strings.Contains(Note("s", r), "Please choose 1, 2, or 3.") {
		t.Fatal("the re-prompt is not shown")
	}
	tests := []struct {
		answer    string
		status    Status
		count     int
		route     string
		guidance  string
		skipEntry string
	}{
		{"1", StatusRework, 0, RouteRescope, "", ""},
		{"2 first the parser, then totals", StatusRework, 0, RoutePair, "first the parser, then totals", ""},
		{"3", StatusSkipped, 3, ContractGap, "", SkipEntry}, // the route of the last rejection stays
	}
	for _, tt := range tests {
		r := esc
		r.RejectionLog = append([]Rejection{}, esc.RejectionLog...)
		Apply(&r, reply(tt.answer), head)
		if r.Status != tt.status || r.RejectionCount != tt.count || r.Guidance != tt.guidance || r.Skip != tt.skipEntry {
			t.Errorf("option %s: %+v", tt.answer, r)
		}
		if tt.route != ImplementationGap && tt.status == StatusRework && r.Route != tt.route {
			t.Errorf("option %s: route %q", tt.answer, r.Route)
		}
		if tt.status == StatusSkipped && !r.Passed("any-new-sha") {
			t.Error("a skipped checkpoint passes the gate")
		}
	}
}

// TestApprovals covers approvals and stale ones.
func TestApprovals(t *testing.T) {
	r := Present(Record{}, 1, "old")
	if eff := Apply(&r, Answer{Kind: KindReaction, Text: "+1", Author: "bob"}, "new"); eff.Ignored == "" || r.Status != StatusPending {
		t.Fatalf("a stale approval counted: %+v", r)
	}
	r = Present(r, 1, "new")
	if eff := Apply(&r, Answer{Kind: KindReaction, Text: "+1", Author: "bob"}, "new"); !eff.Approved || !r.Passed("new") || r.DecidedBy != "bob" {
		t.Fatalf("approval: %+v", r)
	}
	if r.Passed("newer") {
		t.Fatal("an approval is for one head commit")
	}
	if Present(r, 1, "new").Status != StatusApproved {
		t.Fatal("re-presenting for the same commit keeps the approval")
	}
	if p := Present(r, 1, "newer"); p.Status != StatusPending || p.SHA != "newer" {
		t.Fatalf("a push makes the approval stale: %+v", p)
	}
	if p := Present(r, 2, "new"); p.Status != StatusPending || p.PR != 2 {
		t.Fatalf("another pull request starts a new execution: %+v", p)
	}
	if eff := Apply(&r, reply("1"), "new"); eff.Ignored == "" {
		t.Fatal("an answer to a closed checkpoint counted")
	}
}

// TestCheckErrors covers LogCorruption, CounterOverflow and EmptyRejectionLog.
func TestCheckErrors(t *testing.T) {
	ok := Rejection{Attempt: 1, Feedback: "x", Classification: TestGap}
	tests := []struct {
		name      string
		in        Record
		warn      string
		logLen    int
		count     int
		escalated bool
	}{
		{"consistent", Record{Status: StatusRework, RejectionCount: 1, RejectionLog: []Rejection{ok}}, "", 1, 1, false},
		{"shorter log after a reset is fine", Record{Status: StatusRework, RejectionCount: 2, RejectionLog: []Rejection{{Attempt: 2, Classification: ContractGap}}}, "", 1, 2, false},
		{"more entries than rejections", Record{Status: StatusRework, RejectionCount: 1, RejectionLog: []Rejection{ok, ok}}, "LogCorruption", 0, 1, false},
		{"out of order", Record{Status: StatusRework, RejectionCount: 2, RejectionLog: []Rejection{{Attempt: 2, Classification: TestGap}, {Attempt: 1, Classification: TestGap}}}, "LogCorruption", 0, 2, false},
		{"unknown classification", Record{Status: StatusPending, RejectionCount: 1, RejectionLog: []Rejection{{Attempt: 1, Classification: "vibes"}}}, "LogCorruption", 0, 1, false},
		{"overflow", Record{Status: StatusPending, RejectionCount: 4, RejectionLog: []Rejection{}}, "CounterOverflow", 0, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.in
			warns := Check(&r)
			joined := strings.Join(warns, "\n")
			if (tt.warn == "") != (joined == "") || !strings.Contains(joined, tt.warn) {
				t.Errorf("warnings %q, want %q", joined, tt.warn)
			}
			if len(r.RejectionLog) != tt.logLen || r.RejectionCount != tt.count || (r.Status == StatusEscalated) != tt.escalated {
				t.Errorf("got %+v", r)
			}
		})
	}
	// EmptyRejectionLog: escalating with no history warns and leaves the
	// history block out.
	r := Record{Status: StatusPending, SHA: head, RejectionCount: 2, RejectionLog: []Rejection{}}
	r.RejectionLog = nil
	eff := Apply(&r, reply("no"), head)
	if !eff.Escalated || len(eff.Warnings) != 0 {
		// the third rejection itself is logged, so the log is not empty
		t.Fatalf("got %+v", eff)
	}
	r = Record{Status: StatusEscalated, RejectionCount: 3, RejectionLog: []Rejection{}}
	if strings.Contains(Shown(Slice{Name: "A"}, r), "Rejection history") {
		t.Fatal("an empty log must leave the history out")
	}
}
