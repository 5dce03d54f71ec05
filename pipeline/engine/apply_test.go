package engine

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// twoStages is a spec with a coder and a tester stage, 3 iterations each.
func twoStages() plan.Spec {
	return plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, Stages: []plan.Stage{
		{Name: "coder", MaxIterations: 3}, {Name: "tester", MaxIterations: 3}}}
}

func accepted() judgement {
	return judgement{Verdict: layers.Verdict{Status: status.Done, Claimed: true, Accepted: true}}
}

func withStatus(s status.Status, reason string) judgement {
	return judgement{Verdict: layers.Verdict{Status: s, Reason: reason}}
}

// The engine's decisions on one rotation, made in one place (apply): the
// stage progression, exclusion, STUCK counting, the counters of the
// active and the other specs, and what the judgement asks of the review
// loop, the tasks and the verifier guard.
func TestApply(t *testing.T) {
	sp := twoStages()
	for _, tc := range []struct {
		name    string
		before  func(a, other *state.SpecState)
		stage   int
		j       judgement
		changed []string
		check   func(t *testing.T, a, other state.SpecState)
	}{
		{"accepted claim moves to the next stage, counter held below 3/3", func(a, o *state.SpecState) { a.DoneCount, a.StageIterations = 2, 1 }, 0, accepted(), nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.Stage != "tester" || a.StageIterations != 0 || a.StagesDone || a.DoneCount != 2 || a.TaskIndex != 1 || a.TaskStage != "coder" {
					t.Errorf("%+v", a)
				}
			}},
		{"accepted claim on the last stage: every stage passed, 3/3", func(a, o *state.SpecState) { a.DoneCount, a.Stage = 2, "tester" }, 1, accepted(), nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.Stage != "tester" || !a.StagesDone || a.DoneCount != 3 || a.LastStatus != status.Done {
					t.Errorf("%+v", a)
				}
			}},
		{"rejected claim with changes: 0/3, reason kept", func(a, o *state.SpecState) { a.DoneCount = 2 }, 0, withStatus(status.Rejected, "no promise"), []string{"a.go"},
			func(t *testing.T, a, o state.SpecState) {
				if a.DoneCount != 0 || a.Reason != "no promise" || a.LastStatus != status.Rejected || !a.ModifiedFiles || a.ChangedFiles[0] != "a.go" {
					t.Errorf("%+v", a)
				}
			}},
		{"changed files drop another spec from 3/3 to 2/3", func(a, o *state.SpecState) { o.DoneCount = 3 }, 0, withStatus(status.Continue, ""), []string{"a.go"},
			func(t *testing.T, a, o state.SpecState) {
				if o.DoneCount != 2 {
					t.Errorf("other at %d", o.DoneCount)
				}
			}},
		{"no change leaves the other specs alone", func(a, o *state.SpecState) { o.DoneCount = 3 }, 0, withStatus(status.Continue, ""), nil,
			func(t *testing.T, a, o state.SpecState) {
				if o.DoneCount != 3 {
					t.Errorf("other at %d", o.DoneCount)
				}
			}},
		{"max iterations of a stage exclude the spec", func(a, o *state.SpecState) { a.StageIterations = 2 }, 0, withStatus(status.Continue, ""), nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.Excluded != "max iterations (3) of stage coder reached without a verified completion" {
					t.Errorf("excluded %q", a.Excluded)
				}
			}},
		{"STUCK twice in a row excludes the spec", func(a, o *state.SpecState) { a.StuckCount = 1 }, 0, withStatus(status.Stuck, ""), nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.StuckCount != 2 || a.Excluded != "returned STUCK 2 times in a row" {
					t.Errorf("stuck %d excluded %q", a.StuckCount, a.Excluded)
				}
			}},
		{"another status ends a STUCK run", func(a, o *state.SpecState) { a.StuckCount = 1 }, 0, withStatus(status.Rotate, ""), nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.StuckCount != 0 || a.Excluded != "" {
					t.Errorf("%+v", a)
				}
			}},
		{"Path A: a fix rotation is due", nil, 0, judgement{Verdict: layers.Verdict{Status: status.Rejected, Loop: layers.LoopFix, FixIteration: 2, Findings: "fix a.go"}}, nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.ReviewIteration != 2 || a.ReviewFindings != "fix a.go" || a.ReviewFixFailures != 0 {
					t.Errorf("%+v", a.ReviewLoop)
				}
			}},
		{"a failed fix is counted", func(a, o *state.SpecState) { a.AwaitFix(2, "fix a.go") }, 0, judgement{Verdict: layers.Verdict{Status: status.None, Loop: layers.LoopFixFailed}}, nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.ReviewIteration != 2 || a.ReviewFixFailures != 1 {
					t.Errorf("%+v", a.ReviewLoop)
				}
			}},
		{"a passed review ends the loop", func(a, o *state.SpecState) { a.AwaitFix(2, "fix a.go") }, 0, judgement{Verdict: layers.Verdict{Status: status.Done, Accepted: true, Loop: layers.LoopClear}}, nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.ReviewLoop != (state.ReviewLoop{}) {
					t.Errorf("%+v", a.ReviewLoop)
				}
			}},
		{"a changed spec starts its tasks over", func(a, o *state.SpecState) { a.TaskKey, a.TaskIndex = "old", 4; a.AwaitFix(2, "x") }, 0,
			judgement{restart: true, Verdict: layers.Verdict{Status: status.Continue}}, nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.Tasks != (state.Tasks{TaskKey: "h1"}) || a.ReviewIteration != 0 {
					t.Errorf("%+v %+v", a.Tasks, a.ReviewLoop)
				}
			}},
		{"the guard records what the rotation left", func(a, o *state.SpecState) { a.RecordVerifier("k", map[string]string{"check.sh": "aa"}) }, 0,
			judgement{seen: map[string]string{"check.sh": "bb"}, Verdict: layers.Verdict{Status: status.Continue}}, nil,
			func(t *testing.T, a, o state.SpecState) {
				if a.VerifierSeen["check.sh"] != "bb" || a.VerifierHashes["check.sh"] != "aa" {
					t.Errorf("%+v", a.VerifierGuard)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := state.State{Specs: []state.SpecState{{Path: sp.Path}, {Path: "specs/b.spec.md"}}}
			if tc.before != nil {
				tc.before(&st.Specs[0], &st.Specs[1])
			}
			apply(&st, sp, sp.Stages[tc.stage], tc.stage, tc.j, tc.changed, 2)
			if st.Specs[0].LastHash != "h1" || st.Specs[0].StageIterations > sp.Stages[tc.stage].MaxIterations {
				t.Errorf("hash %q, stage iterations %d", st.Specs[0].LastHash, st.Specs[0].StageIterations)
			}
			tc.check(t, st.Specs[0], st.Specs[1])
		})
	}
}

// A spec the state does not know yet is added by apply.
func TestApplyNewSpec(t *testing.T) {
	sp := twoStages()
	var st state.State
	apply(&st, sp, sp.Stages[0], 0, withStatus(status.Continue, ""), []string{"x"}, 3)
	if ss := st.Spec(sp.Path); ss == nil || ss.StageIterations != 1 || !strings.HasPrefix(string(ss.LastStatus), "CONTINUE") {
		t.Fatalf("%+v", st)
	}
}
