package gate_test

import (
	"bytes"
	"context"
	"errors"
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
// description set for each spec. failPublish and failStatus make the next
// write of that kind fail.
type ledgerChannel struct {
	*memChannel
	descs                   map[string]string
	at                      time.Time // when the statuses were set
	failPublish, failStatus bool
}

func (l *ledgerChannel) Status(ctx context.Context, spec, state, desc string) error {
	if l.failStatus {
		l.failStatus = false
		return errors.New("injected: 502")
	}
	l.descs[spec] = desc
	return l.memChannel.Status(ctx, spec, state, desc)
}

func (l *ledgerChannel) Publish(ctx context.Context, spec string, s tiers.Slice, rec tiers.Record) (int64, error) {
	if l.failPublish {
		l.failPublish = false
		return 0, errors.New("injected: 502")
	}
	return l.memChannel.Publish(ctx, spec, s, rec)
}

func (l *ledgerChannel) Recorded(_ context.Context, spec, _ string) (string, time.Time, bool, error) {
	d, ok := l.descs[spec]
	return d, l.at, ok, nil
}

// Two scheduled checks overlap: the other one applied a rejection and set
// its status after this one read the comment. The ledger is ahead of the
// marker because of an answer this run reads too: it is counted once, and
// nothing is taken for a forgery. A marker lowered before a new answer is
// still restored, and the new answer counted on top.
func TestOverlappingRunCountsARejectionOnce(t *testing.T) {
	sp := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, ID: "a", Title: "A", Tier: plan.TierVerify}
	statusAt := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		given   time.Time // the reply
		want    int
		forgery bool
	}{
		{"the reply the other run applied", statusAt.Add(-time.Second), 1, false},
		{"the reply in the same second as the status", statusAt, 1, false},
		{"a new reply after a lowered marker", statusAt.Add(time.Minute), 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &ledgerChannel{memChannel: newMemChannel(2, "abc"), descs: map[string]string{sp.Path: "rejected (1/3): back to work"}, at: statusAt}
			ch.records[sp.Path] = tiers.Record{Status: tiers.StatusPending, PR: 2, SHA: "abc", RejectionLog: []tiers.Rejection{}, AfterComment: 150}
			ch.ids[sp.Path] = 101
			ch.comments()
			ch.snap.Replies = []tiers.Answer{{ID: 200, Kind: tiers.KindReply, Author: "alice", Text: "2 the total must round half up", Given: tc.given}}
			var logs bytes.Buffer
			if _, err := gate.Sync(context.Background(), ch, []plan.Spec{sp}, &state.State{}, zerolog.New(&logs)); err != nil {
				t.Fatal(err)
			}
			r := ch.records[sp.Path]
			if r.RejectionCount != tc.want || r.Status != tiers.StatusRework || len(r.RejectionLog) == 0 || r.RejectionLog[len(r.RejectionLog)-1].Attempt != tc.want {
				t.Fatalf("record %+v, want %d rejection(s), back to work", r, tc.want)
			}
			if forged := strings.Contains(logs.String(), "forged"); forged != tc.forgery {
				t.Fatalf("taken for a forgery: %v, want %v:\n%s", forged, tc.forgery, logs.String())
			}
		})
	}
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

// The comment and the status are two writes: whichever fails, the next
// sync neither takes the genuine record for a forgery nor counts an answer
// twice. A reset is recorded in the ledger first (a status that fails
// leaves the old marker, whose answer is read again); a rejection is shown
// in the comment first (a comment that fails leaves the ledger as it was).
func TestPublishOrderKeepsTheLedgerHonest(t *testing.T) {
	sp := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, ID: "a", Title: "A", Tier: plan.TierVerify}
	ctx := context.Background()
	var logs bytes.Buffer
	sync := func(ch *ledgerChannel) error {
		ch.comments()
		ch.snap.LastComment = 200
		_, err := gate.Sync(ctx, ch, []plan.Spec{sp}, &state.State{}, zerolog.New(&logs))
		return err
	}
	three := []tiers.Rejection{{Attempt: 1, Classification: tiers.TestGap}, {Attempt: 2, Classification: tiers.TestGap}, {Attempt: 3, Classification: tiers.TestGap}}

	// A genuine reset (escalation option 1) whose status fails.
	ch := &ledgerChannel{memChannel: newMemChannel(2, "abc"), descs: map[string]string{sp.Path: "rejected 3 times: escalated"}}
	ch.records[sp.Path] = tiers.Record{Status: tiers.StatusEscalated, PR: 2, SHA: "abc", RejectionCount: 3, RejectionLog: three, AfterComment: 150}
	ch.ids[sp.Path] = 101
	ch.snap.Replies = []tiers.Answer{{ID: 200, Kind: tiers.KindReply, Author: "alice", Text: "1"}}
	ch.failStatus = true
	if err := sync(ch); err == nil {
		t.Fatal("the failed status was not reported")
	}
	if r := ch.records[sp.Path]; r.Status != tiers.StatusEscalated || r.AfterComment != 150 {
		t.Fatalf("the comment was written before the reset was recorded: %+v", r)
	}
	if err := sync(ch); err != nil {
		t.Fatal(err)
	}
	if r := ch.records[sp.Path]; r.Status != tiers.StatusRework || r.RejectionCount != 0 || r.Route != tiers.RouteRescope || ch.descs[sp.Path] != "rejected (0/3): back to work" {
		t.Fatalf("the reply was not read again into a reset: %+v, %q", r, ch.descs[sp.Path])
	}

	// A genuine rejection whose comment fails.
	ch = &ledgerChannel{memChannel: newMemChannel(2, "abc"), descs: map[string]string{sp.Path: "awaiting the human checkpoint (rejected 1/3 so far)"}}
	ch.records[sp.Path] = tiers.Record{Status: tiers.StatusPending, PR: 2, SHA: "abc", RejectionCount: 1, RejectionLog: three[:1], AfterComment: 150}
	ch.ids[sp.Path] = 101
	ch.snap.Replies = []tiers.Answer{{ID: 200, Kind: tiers.KindReply, Author: "alice", Text: "still wrong"}}
	ch.failPublish = true
	if err := sync(ch); err == nil {
		t.Fatal("the failed comment was not reported")
	}
	if ch.descs[sp.Path] != "awaiting the human checkpoint (rejected 1/3 so far)" {
		t.Fatalf("the rejection was recorded before its comment: %q", ch.descs[sp.Path])
	}
	if err := sync(ch); err != nil {
		t.Fatal(err)
	}
	if r := ch.records[sp.Path]; r.RejectionCount != 2 || ch.descs[sp.Path] != "rejected (2/3): back to work" {
		t.Fatalf("the rejection was lost or counted twice: %+v, %q", r, ch.descs[sp.Path])
	}
	if strings.Contains(logs.String(), "forged") {
		t.Fatalf("a genuine record was taken for a forgery:\n%s", logs.String())
	}
}

// A count the ledger restores takes the state's longer rejection log of
// the same pull request when it holds exactly that many rejections, and
// keeps the marker's otherwise.
func TestRestoredCountRecoversTheStatesLog(t *testing.T) {
	sp := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, ID: "a", Title: "A", Tier: plan.TierVerify}
	two := []tiers.Rejection{
		{Attempt: 1, Feedback: "3 decimals", Classification: tiers.TestGap, ActionTaken: tiers.ActionTaken(tiers.TestGap)},
		{Attempt: 2, Feedback: "cents", Classification: tiers.ContractGap, ActionTaken: tiers.ActionTaken(tiers.ContractGap)},
	}
	for _, tc := range []struct {
		name  string
		saved tiers.Record
		want  int // entries of the log after the sync
	}{
		{"the state holds the two rejections", tiers.Record{Status: tiers.StatusPending, PR: 2, SHA: "abc", RejectionCount: 2, RejectionLog: two}, 2},
		{"the state holds another count", tiers.Record{Status: tiers.StatusRework, PR: 2, SHA: "abc", RejectionCount: 1, RejectionLog: two[:1]}, 0},
		{"the state is another pull request's", tiers.Record{Status: tiers.StatusPending, PR: 3, SHA: "abc", RejectionCount: 2, RejectionLog: two}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &ledgerChannel{memChannel: newMemChannel(2, "abc"), descs: map[string]string{sp.Path: "awaiting the human checkpoint (rejected 2/3 so far)"}}
			ch.records[sp.Path] = tiers.Record{Status: tiers.StatusPending, PR: 2, SHA: "abc", RejectionLog: []tiers.Rejection{}}
			ch.ids[sp.Path] = 101
			ch.comments()
			saved := tc.saved
			st := &state.State{Specs: []state.SpecState{{Path: sp.Path, Checkpoint: &saved}}}
			if _, err := gate.Sync(context.Background(), ch, []plan.Spec{sp}, st, zerolog.Nop()); err != nil {
				t.Fatal(err)
			}
			if r := ch.records[sp.Path]; r.RejectionCount != 2 || len(r.RejectionLog) != tc.want {
				t.Fatalf("record %+v, want the count 2 and %d log entries", r, tc.want)
			}
		})
	}
}

// Result.Add files a record where it stands for the head: an approval
// for an older commit is pending again.
func TestResultAdd(t *testing.T) {
	var res gate.Result
	for _, tc := range []struct {
		path    string
		r       tiers.Record
		pending bool
	}{
		{"a", tiers.Record{Status: tiers.StatusApproved, SHA: "head"}, false},
		{"b", tiers.Record{Status: tiers.StatusApproved, SHA: "older"}, true},
		{"c", tiers.Record{Status: tiers.StatusEscalated}, false},
		{"d", tiers.Record{Status: tiers.StatusRework}, false},
		{"e", tiers.Record{Status: tiers.StatusPending, SHA: "head"}, true},
	} {
		if got := res.Add(tc.path, tc.r, "head"); got != tc.pending {
			t.Errorf("%s: pending %v, want %v", tc.path, got, tc.pending)
		}
	}
	if strings.Join(res.Passed, ",") != "a" || strings.Join(res.Pending, ",") != "b,e" || strings.Join(res.Escalated, ",") != "c" || strings.Join(res.Rework, ",") != "d" {
		t.Fatalf("%+v", res)
	}
}
