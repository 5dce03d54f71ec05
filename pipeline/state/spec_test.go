package state

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// busy is a spec in the middle of its work: every group set.
func busy() SpecState {
	var s SpecState
	s.Path = "specs/a.spec.md"
	s.DoneCount, s.LastStatus, s.StuckCount = 2, status.Done, 1
	s.Stage, s.StageIterations, s.StagesDone, s.Reason = "tester", 2, true, "old reason"
	s.TaskKey, s.TaskIndex, s.TaskStage = "h", 3, "coder"
	s.AwaitFix(2, "fix a.go")
	s.ReviewFixFailures = 1
	return s
}

// The stage moves, each in one place.
func TestStageMoves(t *testing.T) {
	for _, tc := range []struct {
		name  string
		move  func(*SpecState)
		check func(s SpecState) bool
	}{
		{"StartOver: 0/3, first stage, nothing passed, no STUCK run", (*SpecState).StartOver, func(s SpecState) bool {
			return s.DoneCount == 0 && s.Stage == "" && s.StageIterations == 0 && !s.StagesDone && s.StuckCount == 0 && s.Reason == "old reason" && s.TaskIndex == 3
		}},
		{"SendBack: starts over from the routed stage, with the reason", func(s *SpecState) { s.SendBack("tester", "human checkpoint rejected (test_gap)") }, func(s SpecState) bool {
			return s.DoneCount == 0 && s.Stage == "tester" && !s.StagesDone && s.Reason == "human checkpoint rejected (test_gap)"
		}},
		{"Advance to the next stage", func(s *SpecState) { s.StagesDone = false; s.Advance("coder", "tester") }, func(s SpecState) bool {
			return s.Stage == "tester" && s.StageIterations == 0 && !s.StagesDone
		}},
		{"Advance past the last stage", func(s *SpecState) { s.StagesDone = false; s.Advance("qa", "") }, func(s SpecState) bool {
			return s.Stage == "qa" && s.StageIterations == 0 && s.StagesDone
		}},
		{"ClearReview ends the review loop only", (*SpecState).ClearReview, func(s SpecState) bool {
			return s.ReviewLoop == ReviewLoop{} && s.TaskIndex == 3 && s.DoneCount == 2
		}},
		{"AwaitFix: a fix rotation for the next iteration, no failure yet", func(s *SpecState) { s.AwaitFix(3, "new") }, func(s SpecState) bool {
			return s.ReviewLoop == ReviewLoop{ReviewIteration: 3, ReviewFindings: "new"}
		}},
		{"StartTasks: a new content starts its tasks and review loop over", func(s *SpecState) { s.StartTasks("h2") }, func(s SpecState) bool {
			return s.Tasks == Tasks{TaskKey: "h2"} && s.ReviewLoop == ReviewLoop{}
		}},
		{"AcceptTask counts the next task", func(s *SpecState) { s.AcceptTask("qa") }, func(s SpecState) bool {
			return s.TaskIndex == 4 && s.TaskStage == "qa"
		}},
	} {
		s := busy()
		tc.move(&s)
		if !tc.check(s) {
			t.Errorf("%s: %+v", tc.name, s)
		}
	}
}

// The verifier guard's baseline: recorded hashes are also what was last
// seen; no guarded file records nothing but the key.
func TestRecordVerifier(t *testing.T) {
	var s SpecState
	h := map[string]string{"check.sh": "aa"}
	s.RecordVerifier("k", h)
	if s.VerifierKey != "k" || s.VerifierHashes["check.sh"] != "aa" || s.VerifierSeen["check.sh"] != "aa" {
		t.Fatalf("%+v", s.VerifierGuard)
	}
	s.VerifierSeen["check.sh"] = "bb"
	if s.VerifierHashes["check.sh"] != "aa" {
		t.Error("seen and baseline share a map")
	}
	s.RecordVerifier("k2", map[string]string{})
	if s.VerifierGuard.VerifierKey != "k2" || s.VerifierHashes != nil || s.VerifierSeen != nil {
		t.Errorf("%+v", s.VerifierGuard)
	}
}
