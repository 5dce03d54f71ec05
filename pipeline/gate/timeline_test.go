package gate_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// Fits reads an answer against ralph-ci's statuses: the newest set at or
// before the answer (a status of the same second counts as before) must
// show the state the answer answers, on the commit a checkpoint answer is
// for.
func TestFits(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	stamp := func(s int, sha string, r tiers.Record) gate.Stamp {
		_, desc := gate.StatusOf(r)
		return gate.Stamp{At: at(s), SHA: sha, Desc: desc}
	}
	pending := func(n int) tiers.Record { return tiers.Record{Status: tiers.StatusPending, RejectionCount: n} }
	rework := func(n int) tiers.Record { return tiers.Record{Status: tiers.StatusRework, RejectionCount: n} }
	escalated := tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 3}
	approved := tiers.Record{Status: tiers.StatusApproved, DecidedBy: "alice"}
	// One checkpoint's life on head h1, newest first: presented at 10,
	// rejected at 20, presented again at 30.
	life := []gate.Stamp{stamp(30, "h1", pending(1)), stamp(20, "h1", rework(1)), stamp(10, "h1", pending(0))}
	tests := []struct {
		name   string
		stamps []gate.Stamp
		sha    string
		given  time.Time
		asked  tiers.Status
		want   string // "" fits, else a part of the reason
	}{
		{"no ledger at all: the token may not write statuses", nil, "h1", at(5), tiers.StatusPending, ""},
		{"after the presentation", life[2:], "h1", at(11), tiers.StatusPending, ""},
		{"in the presentation's second: after it", life[2:], "h1", at(10).Add(400 * time.Millisecond), tiers.StatusPending, ""},
		{"a second before the presentation", life[2:], "h1", at(9), tiers.StatusPending, "before the checkpoint was presented for the head h1"},
		{"while back at work (rework between)", life, "h1", at(25), tiers.StatusPending, "while the checkpoint was back at work"},
		{"in the rejection's second: at work", life, "h1", at(20), tiers.StatusPending, "back at work"},
		{"after the re-presentation", life, "h1", at(31), tiers.StatusPending, ""},
		{"at the re-presentation's second", life, "h1", at(30), tiers.StatusPending, ""},
		{"before the first presentation on this head", life, "h1", at(3), tiers.StatusPending, "before the checkpoint was presented for the head h1"},
		{"an older head's presentation is not this head's", []gate.Stamp{stamp(40, "h2", pending(1)), stamp(10, "h1", pending(0))}, "h2", at(20), tiers.StatusPending, "before the checkpoint was presented for the head h2"},
		{"after the approval", []gate.Stamp{stamp(20, "h1", approved), stamp(10, "h1", pending(0))}, "h1", at(21), tiers.StatusPending, "after the checkpoint was decided"},
		{"a checkpoint answer while escalated", []gate.Stamp{stamp(20, "h1", escalated), stamp(10, "h1", pending(2))}, "h1", at(21), tiers.StatusPending, "while the checkpoint was escalated"},
		{"an escalation answer while escalated", []gate.Stamp{stamp(20, "h1", escalated), stamp(10, "h1", pending(2))}, "h1", at(21), tiers.StatusEscalated, ""},
		{"an escalation answer from before the escalation", []gate.Stamp{stamp(20, "h1", escalated), stamp(10, "h1", pending(2))}, "h1", at(15), tiers.StatusEscalated, "before the checkpoint was escalated"},
		{"an escalation answer on another commit than the head", []gate.Stamp{stamp(20, "h1", escalated)}, "h2", at(25), tiers.StatusEscalated, ""},
		{"an escalation answer replayed after the reset", []gate.Stamp{stamp(30, "h1", rework(0)), stamp(20, "h1", escalated)}, "h1", at(35), tiers.StatusEscalated, "back at work"},
		{"an escalation answer before any status", []gate.Stamp{stamp(20, "h1", escalated)}, "h1", at(15), tiers.StatusEscalated, "before ralph-ci recorded any state"},
		{"a status ralph-ci does not write", []gate.Stamp{{At: at(10), SHA: "h1", Desc: "all good"}}, "h1", at(15), tiers.StatusPending, "not one it writes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := gate.Fits(tc.stamps, tc.sha, tc.given, tc.asked)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("Fits = %q, want %q", got, tc.want)
			}
		})
	}
}

// timelineChannel is a memChannel with a fixed timeline of statuses.
type timelineChannel struct {
	*memChannel
	stamps []gate.Stamp
}

func (c *timelineChannel) Stamps(context.Context, string, string, time.Time) ([]gate.Stamp, error) {
	return c.stamps, nil
}

// Sync applies an answer only when the timeline says it answers the
// checkpoint as it stands: a reply and a reaction given while it was back
// at work, read again because the marker's cursor was lowered, are
// ignored with the reason; one given after the re-presentation applies.
func TestSyncReadsAnswersAgainstTheTimeline(t *testing.T) {
	sp := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, ID: "a", Title: "A", Tier: plan.TierVerify}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	ch := &timelineChannel{memChannel: newMemChannel(2, "abc"), stamps: []gate.Stamp{
		{At: at(30), SHA: "abc", Desc: "awaiting the human checkpoint (rejected 1/3 so far)"},
		{At: at(20), SHA: "abc", Desc: "rejected (1/3): back to work"},
		{At: at(10), SHA: "abc", Desc: "awaiting the human checkpoint"},
	}}
	ch.records[sp.Path] = tiers.Record{Status: tiers.StatusPending, PR: 2, SHA: "abc", RejectionCount: 1,
		RejectionLog: []tiers.Rejection{{Attempt: 1, Classification: tiers.TestGap, ActionTaken: tiers.ActionTaken(tiers.TestGap)}}}
	ch.ids[sp.Path] = 101
	ch.comments()
	ch.snap.Replies = []tiers.Answer{{ID: 150, Kind: tiers.KindReply, Author: "carol", Text: "yes", Given: at(25)}}
	ch.snap.Reactions = map[int64][]tiers.Answer{101: {{ID: 7, Kind: tiers.KindReaction, Author: "alice", Text: "+1", OnComment: 101, Given: at(26)}}}
	var logs bytes.Buffer
	res, err := gate.Sync(context.Background(), ch, []plan.Spec{sp}, &state.State{}, zerolog.New(&logs))
	if err != nil || len(res.Pending) != 1 || ch.records[sp.Path].Status != tiers.StatusPending {
		t.Fatalf("an answer given while at work decided: %+v, %v, %+v", res, err, ch.records[sp.Path])
	}
	for _, want := range []string{`"kind":"reply","id":150`, `"kind":"reaction","id":7`, "while the checkpoint was back at work"} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("the log lacks %q:\n%s", want, logs.String())
		}
	}
	ch.comments()
	ch.snap.Replies = []tiers.Answer{{ID: 160, Kind: tiers.KindReply, Author: "carol", Text: "yes", Given: at(31)}}
	ch.snap.Reactions = nil
	if res, err = gate.Sync(context.Background(), ch, []plan.Spec{sp}, &state.State{}, zerolog.New(&logs)); err != nil || len(res.Passed) != 1 {
		t.Fatalf("an approval after the re-presentation: %+v, %v, %+v", res, err, ch.records[sp.Path])
	}
}
