package engine

import (
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The verify tier in a run. Before scheduling, the run reads the answers
// given to open checkpoints (gate.Sync): a rejection sends its spec back
// to work (counter 0/3, from the stage its classification routes to) with
// the feedback in the next rotations' prompts; an approval or a skip lets
// it through. When no spec needs work, the checkpoint of every verify-tier
// spec verified 3/3 is presented (again) and the run ends awaiting it.
// Without Options.Checkpoints the run neither reads nor presents.

// syncCheckpoints reads the answers and presents due checkpoints, then
// saves the state. It reports whether a spec was sent back to work.
func (e *engine) syncCheckpoints(ctx context.Context) (bool, error) {
	if e.opts.Checkpoints == nil {
		return false, nil
	}
	res, err := gate.Sync(ctx, e.opts.Checkpoints, e.specs, &e.st, e.log)
	if err != nil {
		return false, err
	}
	e.checkpoints = &res
	if err := state.Save(e.dir, e.st); err != nil {
		return false, err
	}
	return len(res.SentBack) > 0, nil
}

// checkpointOf is the checkpoint record of a spec (zero when none).
func (e *engine) checkpointOf(path string) tiers.Record {
	if ss := e.st.Spec(path); ss != nil && ss.Checkpoint != nil {
		return *ss.Checkpoint
	}
	return tiers.Record{}
}

// checkpointPassed tells whether a verify-tier spec's checkpoint lets it
// through: approved for the head the last sync saw, or skipped.
func (e *engine) checkpointPassed(path string) bool {
	if e.checkpoints == nil {
		return false
	}
	for _, p := range e.checkpoints.Passed {
		if p == path {
			return true
		}
	}
	return false
}

// checkpointFeedback is what the checkpoint's answers tell a rotation of
// stage, filtered by the isolation rules (tiers.Feedback).
func (e *engine) checkpointFeedback(sp plan.Spec, stage string) []string {
	if sp.Tier != plan.TierVerify {
		return nil
	}
	return tiers.Feedback(stage, e.checkpointOf(sp.Path))
}

// reportCheckpoints adds the checkpoints to the report: an approved or
// skipped verify-tier spec counts as verified. The totals are summed
// afterwards.
func (e *engine) reportCheckpoints(r *report.Report) {
	if r == nil {
		return
	}
	for i := range r.Specs {
		s := &r.Specs[i]
		sp, ok := e.spec(s.Path)
		if !ok || sp.Tier != plan.TierVerify {
			continue
		}
		rec := e.checkpointOf(s.Path)
		if rec.Status == tiers.StatusNone {
			continue
		}
		s.Checkpoint = ReportCheckpoint(sp, rec)
		if s.Outcome == report.SpecAwaiting && e.checkpointPassed(s.Path) {
			s.Outcome = report.SpecVerified
		}
	}
}

// ReportCheckpoint is the report's view of a checkpoint record.
func ReportCheckpoint(sp plan.Spec, rec tiers.Record) *report.Checkpoint {
	c := &report.Checkpoint{Status: string(rec.Status), SHA: rec.SHA, RejectionCount: rec.RejectionCount,
		Text: tiers.Shown(gate.SliceOf(sp), rec), Note: tiers.Note(sp.Path, rec), Skip: rec.Skip}
	for _, l := range rec.RejectionLog {
		c.RejectionLog = append(c.RejectionLog, report.Rejection{Attempt: l.Attempt, Feedback: l.Feedback, Classification: l.Classification, ActionTaken: l.ActionTaken})
	}
	if c.RejectionLog == nil {
		c.RejectionLog = []report.Rejection{}
	}
	return c
}
