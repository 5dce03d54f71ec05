package gate_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/schema"
)

var (
	totals = plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, Title: "Totals", ID: "a", Tier: plan.TierVerify,
		AcceptanceCriteria: []string{"The total has two decimals"}, Stages: []plan.Stage{{Name: "coder"}, {Name: "tester"}}}
	// later is a verify-tier spec not verified yet: no checkpoint.
	later = plan.Spec{Spec: discovery.Spec{Path: "specs/b.spec.md", Hash: "h2"}, Title: "Later", ID: "b", Tier: plan.TierVerify}
)

// verified marks totals verified 3/3, as a run would.
func verified(st *state.State) {
	ss := st.Spec(totals.Path)
	if ss == nil {
		st.Specs = append(st.Specs, state.SpecState{Path: totals.Path})
		ss = st.Spec(totals.Path)
	}
	ss.DoneCount, ss.StagesDone, ss.LastHash = 3, true, totals.Hash
}

// saveAndValidate writes st as a run does and validates the file against
// the schema's #State.
func saveAndValidate(t *testing.T, st state.State, step string) {
	t.Helper()
	dir := state.At(t.TempDir())
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := state.Save(dir, st); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(dir.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.ValidateJSON("#State", "state.json", raw); err != nil {
		t.Fatalf("%s: state.json does not follow #State: %v\n%s", step, err, raw)
	}
	back, err := state.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Spec(totals.Path), st.Spec(totals.Path); want != nil && want.Checkpoint != nil &&
		(got.Checkpoint == nil || got.Checkpoint.Status != want.Checkpoint.Status || got.Checkpoint.RejectionCount != want.Checkpoint.RejectionCount) {
		t.Fatalf("%s: the checkpoint did not survive the round trip: %+v", step, got.Checkpoint)
	}
}

// TestStateWithCheckpointFollowsSchema: state.json holding checkpoint
// records in every status, as the gate writes them, validates against
// schema #State.
func TestStateWithCheckpointFollowsSchema(t *testing.T) {
	ctx, log := context.Background(), zerolog.Nop()
	ch := gate.Local{Root: t.TempDir(), Out: &bytes.Buffer{}} // not a git repository: head ""
	specs := []plan.Spec{totals, later}
	st := state.State{Version: state.Version, Specs: []state.SpecState{{Path: later.Path}}}
	verified(&st)
	sync := func(step string) {
		t.Helper()
		if _, err := gate.Sync(ctx, ch, specs, &st, log); err != nil {
			t.Fatal(err)
		}
		saveAndValidate(t, st, step)
	}
	answer := func(step, text string, want tiers.Status) {
		t.Helper()
		if _, err := gate.Answer(ctx, ch, totals, &st, "alice", text, log); err != nil {
			t.Fatal(err)
		}
		if got := st.Spec(totals.Path).Checkpoint.Status; got != want {
			t.Fatalf("%s: status %q, want %q", step, got, want)
		}
		saveAndValidate(t, st, step)
	}
	sync("pending")
	answer("rejection 1", "the total shows ```3.333``` decimals", tiers.StatusRework)
	verified(&st)
	sync("pending again")
	answer("rejection 2", "2 the contract must say cents", tiers.StatusRework)
	verified(&st)
	sync("pending a third time")
	answer("rejection 3", "3 round half up", tiers.StatusEscalated)
	answer("an invalid choice", "maybe", tiers.StatusEscalated)
	answer("pair", "2 first the rounding, then the display", tiers.StatusRework)
	verified(&st)
	sync("pending after pair")
	answer("approval", "yes", tiers.StatusApproved)

	// Every field of a record, and the statuses the steps above left out.
	full := tiers.Record{Status: tiers.StatusSkipped, SHA: "0123456789abcdef0123456789abcdef01234567", PR: 2, CommentID: 1001,
		RejectionCount: 3, RejectionLog: []tiers.Rejection{
			{Attempt: 1, Feedback: "a", Classification: tiers.TestGap, ActionTaken: tiers.ActionTaken(tiers.TestGap)},
			{Attempt: 2, Feedback: "b", Classification: tiers.ContractGap, ActionTaken: tiers.ActionTaken(tiers.ContractGap)},
			{Attempt: 3, Feedback: "c", Classification: tiers.ImplementationGap, ActionTaken: tiers.ActionTaken(tiers.ImplementationGap)}},
		Route: tiers.ImplementationGap, Guidance: "g", Skip: tiers.SkipEntry, Reprompt: tiers.InvalidEscalationChoice,
		DecidedBy: "alice", AfterComment: 1005, AfterReaction: 5003}
	for _, status := range []tiers.Status{tiers.StatusSkipped, tiers.StatusEscalated, tiers.StatusNone} {
		rec := full
		rec.Status = status
		st.Spec(totals.Path).Checkpoint = &rec
		saveAndValidate(t, st, "a full record, status "+string(status))
	}
	// A record decoded from an old marker or state without a log.
	st.Spec(totals.Path).Checkpoint = &tiers.Record{Status: tiers.StatusPending}
	saveAndValidate(t, st, "a record without a rejection log")
}
