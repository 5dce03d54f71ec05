package engine

import (
	"fmt"
	"github.com/ralph-ci/ralph-ci/pipeline/breaker"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// apply is the one place a rotation's judgement changes the state: the
// active spec's tasks, review loop and verifier guard, its stage
// progression and stuck handling, then the counters of every spec by
// counter.Step (the active one by its own status, the others only 3/3 ->
// 2/3 when files changed). sp is on stage, the idx-th of its stages.
func apply(st *state.State, sp plan.Spec, stage plan.Stage, idx int, j judgement, changed []string, stuckAttempts int) {
	ss := st.SpecOrNew(sp.Path)
	v := j.Verdict
	if j.restart {
		ss.StartTasks(sp.Hash)
	}
	if j.seen != nil {
		ss.VerifierSeen = j.seen
	}
	if v.Tests != nil {
		ss.VerifierTests = v.Tests
	}
	switch v.Loop {
	case layers.LoopClear:
		ss.ClearReview()
	case layers.LoopFix:
		ss.AwaitFix(v.FixIteration, v.Findings)
	case layers.LoopFixFailed:
		ss.ReviewFixFailures++
	}
	if v.Accepted {
		ss.AcceptTask(stage.Name)
	}

	ss.LastStatus, ss.LastHash, ss.Reason = v.Status, sp.Hash, v.Reason
	ss.ModifiedFiles, ss.ChangedFiles = len(changed) > 0, append([]string{}, changed...)
	ss.StageIterations++
	switch {
	case v.Accepted && idx < len(sp.Stages)-1:
		ss.Advance(stage.Name, sp.Stages[idx+1].Name)
	case v.Accepted:
		ss.Advance(stage.Name, "")
	case ss.StageIterations >= stage.MaxIterations:
		ss.Excluded = fmt.Sprintf("max iterations (%d) of stage %s reached without a verified completion", stage.MaxIterations, stage.Name)
	}
	if v.Status == status.Stuck {
		ss.StuckCount++
		if ss.StuckCount >= stuckAttempts {
			ss.Excluded = fmt.Sprintf("returned STUCK %d times in a row", ss.StuckCount)
		}
	} else {
		ss.StuckCount = 0
	}

	// counter.Apply in place: the other specs move only when files changed
	// (a map of the whole matrix cost 1.4 ms a rotation at 10,000 specs).
	done, moved := counter.IsDone(v.Status), len(changed) > 0
	if moved {
		for i := range st.Specs {
			if other := &st.Specs[i]; other != ss {
				other.DoneCount = counter.Step(other.DoneCount, false, done, moved)
			}
		}
	}
	ss.DoneCount = counter.Step(ss.DoneCount, true, done, moved)
	if !ss.StagesDone {
		ss.DoneCount = min(ss.DoneCount, counter.Max-1)
	}
}

// boundPasses counts a verification pass (a rotation run after the last
// stage passed) and takes the spec out of the loop after max of them
// without reaching 3/3: an agent that changes files on every pass never
// converges. Reaching 3/3 starts the count over.
func boundPasses(ss *state.SpecState, verifying bool, max int) {
	if ss.DoneCount == counter.Max {
		ss.VerificationPasses = 0
		return
	}
	if !verifying {
		return
	}
	ss.VerificationPasses++
	if max > 0 && ss.VerificationPasses >= max && ss.Excluded == "" {
		ss.Excluded = fmt.Sprintf("did not converge: %d verification passes after the last stage passed without reaching 3/3 (files changed; loop.max_verification_passes)", ss.VerificationPasses)
	}
}

// applyForeign applies files changed outside the loop's rotations (pushed
// by a person meanwhile, or between the commit the saved state describes
// and the checkout) as the multi-spec rule says: every spec at 3/3 drops
// to 2/3 and is verified again. No files, no change.
func applyForeign(st *state.State, files []string) {
	if len(files) == 0 {
		return
	}
	for i := range st.Specs {
		st.Specs[i].DoneCount = counter.Propagate(st.Specs[i].DoneCount)
	}
}

// tripBreaker counts a rejected claim against the spec's last rejection
// reason (pipeline/breaker) and takes the spec out of the loop as stuck
// after n rejections in a row for the same one (loop.same_rejections). An
// accepted claim ends the row; a rotation without a claim (CONTINUE,
// ROTATE, no status) neither counts nor ends it.
func tripBreaker(ss *state.SpecState, v layers.Verdict, n int) {
	switch {
	case v.Accepted:
		ss.RejectKey, ss.RejectRepeats = "", 0
	case v.Status == status.Rejected:
		layer := ""
		for _, l := range v.Layers {
			if !l.Passed {
				layer = l.Name
			}
		}
		key := breaker.Key(layer, v.Reason)
		ss.RejectRepeats, ss.RejectKey = breaker.Count(ss.RejectKey, ss.RejectRepeats, key), key
		if n > 0 && ss.RejectRepeats >= n && ss.Excluded == "" {
			ss.StuckBy = "breaker"
			ss.Excluded = fmt.Sprintf("stuck: the claim was rejected %d times in a row for the same reason (layer %s): %s", ss.RejectRepeats, layer, v.Reason)
		}
	}
}
