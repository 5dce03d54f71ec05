package layers

import (
	"fmt"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// Layer 6, the artifact review, mapped onto ralph-ci: a task is an
// accepted completion claim of a spec, numbered from 0 per spec; its
// phase is its stage; the spec has one task per stage before its
// verification passes, so the final task is the claim that completes the
// last stage (taskIndex == stages - 1).

// ReviewDue tells whether the task at index i, on stage, gets an artifact
// review: at a phase boundary (its stage differs from the previous task's),
// every Nth task, and at the final task.
func ReviewDue(i int, prevStage, stage string, stages, every int) bool {
	return (i > 0 && prevStage != stage) || i%every == 0 || i == stages-1
}

// NextReview is the index of the next task after i that would be reviewed.
func NextReview(i, stages, every int) int {
	if i+1 <= stages-1 { // the next task starts a new stage
		return i + 1
	}
	return (i/every + 1) * every
}

// SkipMessage is logged (and written to the progress file) when a task
// gets no review.
func SkipMessage(i, stages, every int) string {
	return fmt.Sprintf("Skipping artifact review (next at task %d)", NextReview(i, stages, every))
}

// ReviewIteration is the iteration of the review about to run: the
// pending loop's, or 1 when it is missing or out of range ("iteration
// counter edge cases: default to 1").
func ReviewIteration(pending, max int) int {
	if pending < 1 || pending > max {
		return 1
	}
	return pending
}

// ReviewPath is where a reviewer's answer leads.
type ReviewPath int

// The paths of the review loop.
const (
	ReviewPassed   ReviewPath = iota // REVIEW_PASS
	ReviewNoSignal                   // neither signal: REVIEW_PASS (no signal), permissive
	ReviewMaxed                      // REVIEW_FAIL at the last iteration: proceed with a warning
	ReviewPathB                      // REVIEW_FAIL, spec-level findings: suggestions, proceed
	ReviewPathA                      // REVIEW_FAIL: a fix rotation with the findings
)

// Review is the decision on one reviewer's answer.
type Review struct {
	Path      ReviewPath
	Iteration int    // the review iteration that ran
	Max       int    // layers.review.max_iterations
	Findings  string // ReviewFindings of the output
}

// DecideReview reads the reviewer's output of review iteration it (of
// max) and decides the path.
func DecideReview(out string, it, max int) Review {
	r := Review{Iteration: it, Max: max, Findings: ReviewFindings(out)}
	switch signal := ReviewSignal(out); {
	case signal == "":
		r.Path = ReviewNoSignal
	case signal == "REVIEW_PASS":
		r.Path = ReviewPassed
	case it >= max:
		r.Path = ReviewMaxed
	case PathB(out):
		r.Path = ReviewPathB
	default:
		r.Path = ReviewPathA
	}
	return r
}

// Entry is the progress-file entry of the review of task ("Review
// Iteration Logging").
func (r Review) Entry(task int) string {
	status, action := "REVIEW_FAIL", "proceeded"
	switch r.Path {
	case ReviewPassed:
		status = "REVIEW_PASS"
	case ReviewNoSignal:
		status = "REVIEW_PASS (no signal)"
	case ReviewPathB:
		action = "warnings appended, proceeded"
	case ReviewPathA:
		action = "fix task added"
	}
	return fmt.Sprintf("\n### Review: execution (Task %d, Iteration %d)\n- Status: %s\n- Findings: %s\n- Action: %s\n", task, r.Iteration, status, Summary(r.Findings), action)
}

// Warning is the warning of a review that ran out of iterations (""
// on every other path).
func (r Review) Warning() string {
	if r.Path != ReviewMaxed {
		return ""
	}
	return fmt.Sprintf("Max iterations (%d) reached without REVIEW_PASS.\nProceeding with best available implementation.\nOutstanding issues: %s", r.Max, r.Findings)
}

// Suggestions is what Path B appends to the progress file of task (""
// on every other path).
func (r Review) Suggestions(task int) string {
	if r.Path != ReviewPathB {
		return ""
	}
	return fmt.Sprintf("\n## Review Suggestions\n\n(Task %d, iteration %d)\n%s\n", task, r.Iteration, r.Findings)
}

// Review records the reviewer's decision: every path but Path A lets the
// claim through and ends the loop; Path A rejects it and asks for a fix
// rotation. progressFile names where Path B's suggestions go. It reports
// whether the claim still holds.
func (v *Verdict) Review(r Review, progressFile string) bool {
	switch r.Path {
	case ReviewNoSignal:
		v.Pass("review", "REVIEW_PASS (no signal)")
	case ReviewPassed:
		v.Pass("review", fmt.Sprintf("REVIEW_PASS (iteration %d)", r.Iteration))
	case ReviewMaxed:
		v.Pass("review", fmt.Sprintf("REVIEW_FAIL at max iterations (%d): proceeding with best available implementation", r.Max))
	case ReviewPathB:
		v.Pass("review", "REVIEW_FAIL with spec-level findings (Path B): suggestions appended under ## Review Suggestions in "+progressFile)
	default:
		v.Reject("review", fmt.Sprintf("REVIEW_FAIL (review iteration %d of %d): fix the reviewer's findings, then claim completion again. Findings: %s", r.Iteration, r.Max, r.Findings))
		v.Loop, v.FixIteration, v.Findings = LoopFix, r.Iteration+1, r.Findings
		return false
	}
	v.Loop = LoopClear
	return true
}

// FixGaveUp is logged (and written to the progress file) when a review
// fix failed twice.
const FixGaveUp = "the review fix failed twice: proceeding with the original implementation"

// FixFailed judges a fix rotation of a pending review loop (iteration
// it) that did not end in an accepted claim ("Phase agent fails during
// revision"): a rotation that was rejected, stuck, silent or timed out is
// retried once (failures counts the earlier failed fixes); when the retry
// fails too, the original implementation is used and the claim is
// accepted. gaveUp tells the latter.
func (v *Verdict) FixFailed(timedOut bool, it, failures int) (gaveUp bool) {
	switch v.Status {
	case status.Rejected, status.Stuck, status.None:
	default:
		if !timedOut {
			return false
		}
	}
	if failures+1 < 2 {
		note := fmt.Sprintf("the review fix failed, retrying once (review iteration %d)", it)
		if v.Reason != "" {
			note = v.Reason + "; " + note
		}
		v.Reason, v.Loop = note, LoopFixFailed
		return false
	}
	v.Accepted, v.Loop = true, LoopClear
	v.Pass("review", FixGaveUp)
	return true
}
