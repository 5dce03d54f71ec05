package gate

import (
	"errors"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// TestRunFailed: only an end that is neither done nor a person's answer
// fails the gate; an error wins.
func TestRunFailed(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		code exitcode.Code
		err  error
		want exitcode.Code // 0: not failed
	}{
		{exitcode.OK, nil, 0},
		{exitcode.AwaitHuman, nil, 0},
		{exitcode.Rejected, nil, 0},
		{exitcode.Escalated, nil, 0},
		{exitcode.Limits, nil, exitcode.Limits},
		{exitcode.Stuck, nil, exitcode.Stuck},
		{exitcode.OK, boom, exitcode.Failure},
	} {
		got := RunFailed(tc.code, tc.err, "message")
		switch {
		case tc.want == 0 && got != nil:
			t.Errorf("%s: RunFailed = %v, want nil", tc.code.Class(), got)
		case tc.want != 0 && (got == nil || exitcode.Of(got) != tc.want):
			t.Errorf("%s (err %v): RunFailed = %v, want exit %d", tc.code.Class(), tc.err, got, tc.want)
		}
	}
}

// spec is a spec of path, content hash and tier.
func spec(path, hash, tier string) plan.Spec {
	sp := plan.Spec{Tier: tier}
	sp.Path, sp.Hash = path, hash
	return sp
}

// verified is a spec state at 3/3 for hash.
func verified(path, hash string) state.SpecState {
	ss := state.SpecState{Path: path}
	ss.DoneCount, ss.StagesDone, ss.LastHash = 3, true, hash
	return ss
}

// TestUnverifiedAndCheckpoints: the specs not at 3/3 for their content
// are named; a verify-tier spec's checkpoint passes only for the head it
// was approved at; removals are pending.
func TestUnverifiedAndCheckpoints(t *testing.T) {
	gone := spec("gone", "", plan.TierVerify)
	gone.Removal = true
	specs := []plan.Spec{spec("a", "ha", plan.TierVerify), spec("b", "hb2", plan.TierVerify), spec("c", "hc", plan.TierAuto), gone}
	a, b := verified("a", "ha"), verified("b", "hb1")
	a.Checkpoint = &tiers.Record{Status: tiers.StatusApproved, SHA: "head"}
	b.Checkpoint = &tiers.Record{Status: tiers.StatusRework}
	st := &state.State{Specs: []state.SpecState{a, b}}
	if got, want := Unverified(specs, st), []string{"b is not verified 3/3", "c is not verified 3/3"}; !slices.Equal(got, want) {
		t.Errorf("unverified = %q, want %q", got, want)
	}
	r := CheckpointsIn(specs, st, "head", []plan.Spec{spec("old", "", plan.TierVerify)})
	if !slices.Equal(r.Passed, []string{"a"}) || !slices.Equal(r.Rework, []string{"b"}) || !slices.Equal(r.Pending, []string{"gone", "removal of old"}) {
		t.Errorf("checkpoints at head: %+v", r)
	}
	if r := CheckpointsIn(specs, st, "other", nil); slices.Contains(r.Passed, "a") {
		t.Errorf("approved at head, passed at another commit: %+v", r)
	}
}
