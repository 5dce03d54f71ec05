package engine

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The report's outcome of each spec and the totals: a verify-tier spec
// verified 3/3 awaits its checkpoint until the checkpoint lets it
// through, then it counts as verified; the totals are those of
// report.ComputeTotals over the final outcomes.
func TestReportOutcomesAndTotals(t *testing.T) {
	spec := func(path, tier string) plan.Spec {
		return plan.Spec{Spec: discovery.Spec{Path: path, Hash: "h"}, Tier: tier, Stages: []plan.Stage{{Name: "coder"}}}
	}
	verified := func(path string) state.SpecState {
		ss := state.SpecState{Path: path}
		ss.DoneCount, ss.StagesDone, ss.LastHash, ss.LastStatus = 3, true, "h", status.Done
		return ss
	}
	stuck := state.SpecState{Path: "stuck"}
	stuck.Excluded, stuck.LastStatus = "returned STUCK 3 times in a row", status.Stuck
	failed := state.SpecState{Path: "failed"}
	failed.Excluded, failed.LastStatus = "max iterations", status.Continue
	approved, waiting := verified("approved"), verified("waiting")
	approved.Checkpoint = &tiers.Record{Status: tiers.StatusApproved, SHA: "c1"}
	waiting.Checkpoint = &tiers.Record{Status: tiers.StatusPending, SHA: "c1"}
	e := &engine{
		specs: []plan.Spec{spec("auto", plan.TierAuto), spec("approved", plan.TierVerify), spec("waiting", plan.TierVerify),
			spec("stuck", plan.TierAuto), spec("failed", plan.TierAuto), spec("new", plan.TierAuto)},
		st:          state.State{Specs: []state.SpecState{verified("auto"), approved, waiting, stuck, failed}},
		checkpoints: &gate.Result{Passed: []string{"approved"}},
		rotations: map[string][]report.Rotation{"auto": {{CostUSD: 0.5, DurationSeconds: 2}, {CostUSD: 0.25, DurationSeconds: 1}},
			"stuck": {{CostUSD: 1}}},
	}
	r := e.report()
	want := map[string]string{"auto": report.SpecVerified, "approved": report.SpecVerified, "waiting": report.SpecAwaiting,
		"stuck": report.SpecStuck, "failed": report.SpecFailed, "new": report.SpecPending}
	for _, s := range r.Specs {
		if s.Outcome != want[s.Path] {
			t.Errorf("%s: outcome %q, want %q", s.Path, s.Outcome, want[s.Path])
		}
		if (s.Path == "approved" || s.Path == "waiting") != (s.Checkpoint != nil) {
			t.Errorf("%s: checkpoint %+v", s.Path, s.Checkpoint)
		}
	}
	if r.Specs[0].CostUSD != 0.75 || r.Specs[0].DurationSeconds != 3 {
		t.Errorf("auto: cost %v duration %v", r.Specs[0].CostUSD, r.Specs[0].DurationSeconds)
	}
	wantTotals := report.Totals{Specs: 6, Verified: 2, Pending: 1, Failed: 1, Stuck: 1, Awaiting: 1, Rotations: 3, CostUSD: 1.75}
	if r.Totals != wantTotals {
		t.Errorf("totals %+v, want %+v", r.Totals, wantTotals)
	}
}
