package gate

import (
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The parts of a run's Standing at its end, from how it ended and the
// loop's state (pipeline/run sets the one status with them).

// RunFailed is what fails the gate of a run that ended with code: its error,
// else an end that is neither done nor waiting on a person's answer.
func RunFailed(code exitcode.Code, runErr error, message string) error {
	switch {
	case runErr != nil:
		return runErr
	case code != exitcode.OK && code != exitcode.AwaitHuman && code != exitcode.Rejected && code != exitcode.Escalated:
		return exitcode.New(code, errString(message))
	}
	return nil
}

// Unverified lists the specs st does not hold verified 3/3.
func Unverified(specs []plan.Spec, st *state.State) []string {
	var why []string
	for _, sp := range specs {
		if ss := st.Spec(sp.Path); !sp.Removal && (ss == nil || !ss.Verified(sp.Hash)) {
			why = append(why, sp.Path+" is not verified 3/3")
		}
	}
	return why
}

// CheckpointsIn is where the verify-tier checkpoints of specs stand in st
// for head (removals are pending: check presents and judges them).
func CheckpointsIn(specs []plan.Spec, st *state.State, head string, removals []plan.Spec) Result {
	var r Result
	for _, sp := range specs {
		if sp.Tier != plan.TierVerify {
			continue
		}
		var rec tiers.Record
		if ss := st.Spec(sp.Path); ss != nil && ss.Checkpoint != nil {
			rec = *ss.Checkpoint
		}
		r.Add(sp.Path, rec, head)
	}
	for _, sp := range removals {
		r.Pending = append(r.Pending, "removal of "+sp.Path)
	}
	return r
}

type errString string

func (e errString) Error() string { return string(e) }
