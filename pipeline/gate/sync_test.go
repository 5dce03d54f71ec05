package gate_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// memChannel is a pull request in memory: Read returns snap, Publish
// keeps each spec's record as its comment (ids from 101) and counts.
type memChannel struct {
	snap      gate.Snapshot
	records   map[string]tiers.Record
	ids       map[string]int64
	published int
	statuses  map[string]string
}

func newMemChannel(pr int, head string) *memChannel {
	return &memChannel{snap: gate.Snapshot{PR: pr, Head: head}, records: map[string]tiers.Record{}, ids: map[string]int64{}, statuses: map[string]string{}}
}

func (m *memChannel) Read(context.Context) (gate.Snapshot, error) { return m.snap, nil }

func (m *memChannel) Publish(_ context.Context, spec string, _ tiers.Slice, rec tiers.Record) (int64, error) {
	if m.ids[spec] == 0 {
		m.ids[spec] = int64(101 + len(m.ids))
	}
	rec.CommentID = m.ids[spec]
	m.records[spec], m.published = rec, m.published+1
	return m.ids[spec], nil
}

func (m *memChannel) Status(_ context.Context, spec, state, _ string) error {
	m.statuses[spec] = state
	return nil
}

// comments makes the snapshot show the records published so far.
func (m *memChannel) comments() {
	m.snap.Comments = map[string]gate.Comment{}
	for spec, rec := range m.records {
		m.snap.Comments[spec] = gate.Comment{ID: m.ids[spec], Marker: tiers.Marker{Spec: spec, Record: rec}}
		m.snap.LastComment = max(m.snap.LastComment, m.ids[spec])
	}
}

// TestSyncRoutesAnswers: on a pull request with two open checkpoints an
// unaddressed reply is ignored, a reply that names its spec answers it,
// a reaction answers the checkpoint it is on, a rejection sends its spec
// back to work once, answers already read are not applied again, and an
// unreadable marker is published again.
func TestSyncRoutesAnswers(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	log := zerolog.New(&logs)
	other := plan.Spec{Spec: discovery.Spec{Path: "specs/c.spec.md", Hash: "h3"}, Title: "Other", ID: "c", Tier: plan.TierVerify,
		Stages: []plan.Stage{{Name: "coder"}, {Name: "tester"}}}
	specs := []plan.Spec{totals, other}
	st := state.State{Version: state.Version, Specs: []state.SpecState{{Path: other.Path, Counting: state.Counting{DoneCount: 3, LastHash: other.Hash}, Staging: state.Staging{StagesDone: true}}}}
	verified(&st)
	ch := newMemChannel(7, "head1")

	res, err := gate.Sync(ctx, ch, specs, &st, log)
	if err != nil || !slices.Equal(res.Pending, []string{totals.Path, other.Path}) || ch.published != 2 {
		t.Fatalf("first sync: %+v, %v, %d published; want both pending and shown", res, err, ch.published)
	}
	ch.comments()
	ch.snap.Replies = []tiers.Answer{
		{ID: 200, Kind: tiers.KindReply, Author: "alice", Text: "yes"},
		{ID: 201, Kind: tiers.KindReply, Author: "alice", Text: totals.Path + ": yes"},
	}
	ch.snap.LastComment = 201
	ch.snap.Reactions = map[int64][]tiers.Answer{ch.ids[other.Path]: {{ID: 300, Kind: tiers.KindReaction, Author: "bob", Text: "-1", OnComment: ch.ids[other.Path]}}}
	res, err = gate.Sync(ctx, ch, specs, &st, log)
	if err != nil || !slices.Equal(res.Passed, []string{totals.Path}) || !slices.Equal(res.Rework, []string{other.Path}) || !slices.Equal(res.SentBack, []string{other.Path}) {
		t.Fatalf("second sync: %+v, %v; want totals passed, other sent back", res, err)
	}
	if !strings.Contains(logs.String(), "several checkpoints are open") {
		t.Errorf("the unaddressed reply was not reported as ambiguous:\n%s", logs.String())
	}
	ss := st.Spec(other.Path)
	if ss.DoneCount != 0 || ss.Stage != "tester" || ss.Checkpoint == nil || ss.Checkpoint.RejectionCount != 1 {
		t.Fatalf("the rejected spec is not back at work from the tester: %+v", ss)
	}
	if ch.statuses[totals.Path] != "success" || ch.statuses[other.Path] != "pending" {
		t.Errorf("commit statuses %v", ch.statuses)
	}

	ch.comments()
	shown := ch.published
	res, err = gate.Sync(ctx, ch, specs, &st, log)
	if err != nil || len(res.SentBack) != 0 || ch.published != shown || st.Spec(other.Path).Checkpoint.RejectionCount != 1 {
		t.Fatalf("a read with nothing new: %+v, %v, %d published (was %d); want nothing applied or shown again", res, err, ch.published, shown)
	}

	c := ch.snap.Comments[totals.Path]
	c.Err = errors.New("unreadable")
	ch.snap.Comments[totals.Path] = c
	if _, err := gate.Sync(ctx, ch, specs, &st, log); err != nil || ch.published != shown+1 {
		t.Fatalf("an unreadable marker: %v, %d published; want it shown again", err, ch.published-shown)
	}
	if !strings.Contains(logs.String(), "LogCorruption") {
		t.Errorf("no LogCorruption warning:\n%s", logs.String())
	}
}
