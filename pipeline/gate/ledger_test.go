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

// Every record's commit status reads back as the record's status and
// count (the ledger), and the texts users and existing checks know stay.
func TestStatusOfRoundTrip(t *testing.T) {
	type testCase struct {
		rec         tiers.Record
		state, desc string
		want        gate.Entry
	}
	for _, tc := range []testCase{
		{tiers.Record{Status: tiers.StatusPending}, "pending", "awaiting the human checkpoint", gate.Entry{Status: tiers.StatusPending}},
		{tiers.Record{Status: tiers.StatusPending, RejectionCount: 2}, "pending", "awaiting the human checkpoint (rejected 2/3 so far)", gate.Entry{Status: tiers.StatusPending, Count: 2}},
		{tiers.Record{Status: tiers.StatusRework, RejectionCount: 1}, "pending", "rejected (1/3): back to work", gate.Entry{Status: tiers.StatusRework, Count: 1}},
		{tiers.Record{Status: tiers.StatusRework, RejectionCount: 0}, "pending", "rejected (0/3): back to work", gate.Entry{Status: tiers.StatusRework}},
		{tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 3}, "failure", "rejected 3 times: escalated", gate.Entry{Status: tiers.StatusEscalated, Count: 3}},
		{tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 4}, "failure", "rejected 4 times: escalated", gate.Entry{Status: tiers.StatusEscalated, Count: 4}},
		{tiers.Record{Status: tiers.StatusApproved, DecidedBy: "alice"}, "success", "approved by @alice", gate.Entry{Status: tiers.StatusApproved, By: "alice"}},
		{tiers.Record{Status: tiers.StatusApproved, DecidedBy: "a-b", RejectionCount: 2}, "success", "approved by @a-b (rejected 2/3 before)", gate.Entry{Status: tiers.StatusApproved, Count: 2, By: "a-b"}},
		{tiers.Record{Status: tiers.StatusSkipped, RejectionCount: 3}, "success", "verification skipped by the user", gate.Entry{Status: tiers.StatusSkipped, Count: 3}},
	} {
		state, desc := gate.StatusOf(tc.rec)
		if state != tc.state || desc != tc.desc {
			t.Errorf("StatusOf(%+v) = %q, %q; want %q, %q", tc.rec, state, desc, tc.state, tc.desc)
		}
		got, ok := gate.ParseStatus(desc)
		if !ok || got != tc.want {
			t.Errorf("ParseStatus(%q) = %+v, %v; want %+v", desc, got, ok, tc.want)
		}
	}
	for _, desc := range []string{"", "approved", "awaiting the human checkpoint (rejected x/3 so far)", "rejected (1/3): back to work!", "rejected 99999999999999999999 times: escalated"} {
		if e, ok := gate.ParseStatus(desc); ok {
			t.Errorf("ParseStatus(%q) = %+v: a text StatusOf never writes was read", desc, e)
		}
	}
}

// Restore raises a record to the ledger, never lowers it.
func TestRestore(t *testing.T) {
	type testCase struct {
		name    string
		rec     tiers.Record
		ledger  gate.Entry
		lowered bool
		want    tiers.Record
	}
	pending := func(n int) tiers.Record { return tiers.Record{Status: tiers.StatusPending, RejectionCount: n} }
	for _, tc := range []testCase{
		{"same count", pending(2), gate.Entry{Status: tiers.StatusPending, Count: 2}, false, pending(2)},
		{"a higher count stays (the ledger may lag)", pending(2), gate.Entry{Status: tiers.StatusRework, Count: 1}, false, pending(2)},
		{"a genuine reset (0/3 recorded)", tiers.Record{Status: tiers.StatusRework, Route: tiers.RouteRescope}, gate.Entry{Status: tiers.StatusRework}, false, tiers.Record{Status: tiers.StatusRework, Route: tiers.RouteRescope}},
		{"a lowered count is restored", pending(0), gate.Entry{Status: tiers.StatusPending, Count: 2}, true, pending(2)},
		{"restored to 3: escalated", pending(0), gate.Entry{Status: tiers.StatusRework, Count: 3}, true, tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 3}},
		{"a dropped escalation", pending(3), gate.Entry{Status: tiers.StatusEscalated, Count: 3}, true, tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 3}},
		{"an approval over an escalation is dropped",
			tiers.Record{Status: tiers.StatusApproved, DecidedBy: "alice", DecidedID: 7, DecidedKind: tiers.KindReply},
			gate.Entry{Status: tiers.StatusEscalated, Count: 3}, true, tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 3}},
		{"an approval keeps its decision, with its count",
			tiers.Record{Status: tiers.StatusApproved, DecidedBy: "alice", DecidedID: 7, DecidedKind: tiers.KindReply},
			gate.Entry{Status: tiers.StatusApproved, Count: 2, By: "alice"}, true, tiers.Record{Status: tiers.StatusApproved, DecidedBy: "alice", DecidedID: 7, DecidedKind: tiers.KindReply, RejectionCount: 2}},
		{"a confirmed skip stays", tiers.Record{Status: tiers.StatusSkipped, RejectionCount: 3}, gate.Entry{Status: tiers.StatusEscalated, Count: 3}, false, tiers.Record{Status: tiers.StatusSkipped, RejectionCount: 3}},
		{"a skip recorded, the marker reset", pending(0), gate.Entry{Status: tiers.StatusSkipped, Count: 3}, true, tiers.Record{Status: tiers.StatusEscalated, RejectionCount: 3}},
	} {
		r := tc.rec
		if lowered := gate.Restore(&r, tc.ledger); lowered != tc.lowered || !equalRecords(r, tc.want) {
			t.Errorf("%s: Restore(%+v, %+v) = %v, %+v; want %v, %+v", tc.name, tc.rec, tc.ledger, lowered, r, tc.lowered, tc.want)
		}
	}
}

func equalRecords(a, b tiers.Record) bool {
	return a.Status == b.Status && a.RejectionCount == b.RejectionCount && a.DecidedBy == b.DecidedBy && a.DecidedID == b.DecidedID && a.Route == b.Route
}

// ledgerChannel is a memChannel whose statuses are a ledger: the last
// description set for each spec.
type ledgerChannel struct {
	*memChannel
	descs map[string]string
}

func (l *ledgerChannel) Status(ctx context.Context, spec, state, desc string) error {
	l.descs[spec] = desc
	return l.memChannel.Status(ctx, spec, state, desc)
}

func (l *ledgerChannel) Recorded(_ context.Context, spec, _ string) (string, time.Time, bool, error) {
	d, ok := l.descs[spec]
	return d, time.Time{}, ok, nil
}

// Sync restores a count that a marker edit lowered, warns naming the
// comment, and publishes the record again; after a genuine reset
// (recorded as such) it changes nothing.
func TestSyncRestoresTheLedgersCount(t *testing.T) {
	sp := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, ID: "a", Title: "A", Tier: plan.TierVerify}
	ch := &ledgerChannel{memChannel: newMemChannel(2, "abc"), descs: map[string]string{}}
	ch.records[sp.Path] = tiers.Record{Status: tiers.StatusPending, PR: 2, SHA: "abc", RejectionCount: 0, RejectionLog: []tiers.Rejection{}}
	ch.ids[sp.Path] = 101
	ch.descs[sp.Path] = "awaiting the human checkpoint (rejected 2/3 so far)"
	ch.comments()
	var logs bytes.Buffer
	res, err := gate.Sync(context.Background(), ch, []plan.Spec{sp}, &state.State{}, zerolog.New(&logs))
	if err != nil {
		t.Fatal(err)
	}
	if r := ch.records[sp.Path]; r.RejectionCount != 2 || r.Status != tiers.StatusPending || ch.published != 1 {
		t.Fatalf("record %+v (published %d), want the count 2 restored and published", r, ch.published)
	}
	if len(res.Pending) != 1 || !strings.Contains(logs.String(), "forged checkpoint marker in comment 101: it lowers the rejection count from 2 to 0") {
		t.Fatalf("result %+v, log:\n%s", res, logs.String())
	}
	// A genuine reset, recorded: nothing to restore.
	ch.records[sp.Path] = tiers.Record{Status: tiers.StatusRework, Route: tiers.RouteRescope, PR: 2, SHA: "abc", RejectionLog: []tiers.Rejection{}}
	ch.descs[sp.Path] = "rejected (0/3): back to work"
	ch.comments()
	logs.Reset()
	if _, err := gate.Sync(context.Background(), ch, []plan.Spec{sp}, &state.State{}, zerolog.New(&logs)); err != nil {
		t.Fatal(err)
	}
	if r := ch.records[sp.Path]; r.RejectionCount != 0 || strings.Contains(logs.String(), "forged") {
		t.Fatalf("a genuine reset was undone: %+v\n%s", r, logs.String())
	}
}
