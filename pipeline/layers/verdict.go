package layers

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// ContradictionLog is logged, verbatim, when a claim admits failure.
const ContradictionLog = "CONTRADICTION: claimed completion while admitting failure"

// Loop is what a verdict does to the spec's pending artifact-review loop.
type Loop int

// The steps of the review loop a verdict can ask for.
const (
	LoopKeep      Loop = iota // leave the loop as it is
	LoopClear                 // the loop is over (passed, proceeded, or the fix gave up)
	LoopFix                   // REVIEW_FAIL, Path A: a fix rotation is due (FixIteration, Findings)
	LoopFixFailed             // a fix rotation failed: count it, it is retried once
)

// Verdict is the judgement of one rotation's output.
type Verdict struct {
	Status   status.Status // the effective status for the counter
	Claimed  bool          // the agent claimed completion
	Accepted bool          // ... and the claim held
	Reason   string        // why a claim was rejected
	// Layers are the verdicts of the layers and the method, in order.
	Layers []report.Layer
	// Loop is the review loop's next step; FixIteration and Findings go
	// with LoopFix.
	Loop         Loop
	FixIteration int
	Findings     string
	// Tests are the stage's tests that passed so far, when the method's
	// test report held (nil: the inventory stays as it is).
	Tests []string

	// Notes are what to log about the spec, and Progress what to append
	// to its progress log, in order.
	Notes    []Note
	Progress []string
	// Need is a fact [Judge] lacks (the verdict is then not final), and
	// ReviewAt the review iteration the reviewer runs for (NeedReview).
	Need     Need
	ReviewAt int
	reviewed bool // the reviewer ran
}

// Pass records a layer that passed.
func (v *Verdict) Pass(layer, detail string) {
	v.Layers = append(v.Layers, report.Layer{Name: layer, Passed: true, Detail: detail})
}

// Reject records a layer that rejected the claim: the claim counts as
// non-DONE and reason goes to the handoff and the next prompt.
func (v *Verdict) Reject(layer, reason string) {
	v.Status, v.Reason, v.Accepted = status.Rejected, reason, false
	v.Layers = append(v.Layers, report.Layer{Name: layer, Detail: reason})
}

// Rules are what the claim layers read besides the rotation's output.
type Rules struct {
	// Admissions are the contradiction phrases (layers.contradiction_phrases).
	Admissions []string
	// Echoes are ralph-ci's own words the agent may quote back (the last
	// rejection reason): they are no admission.
	Echoes []string
	// Headings are the headings of work left ([OpenWork]).
	Headings []string
	// Criteria are the spec's acceptance criteria the agent must report
	// done ([CriteriaLeft]); nil: the criteria layer does not run.
	Criteria []string
}

// Claim runs the layers that need no process on a rotation's output:
// contradiction, signal and promise. A claim is a DONE/TASK_COMPLETE
// status or a promise. ok tells that the claim passed so far: the
// verifier guard, the method and the artifact review follow.
func Claim(st status.Status, rep agent.Report, stage plan.Stage, rules Rules) (v Verdict, ok bool) {
	v = Verdict{Status: st}
	v.Claimed = st == status.Done || rep.PromiseFound
	if !v.Claimed {
		return v, false
	}
	admitted := Admissions(FinalMessage(rep.Tail, rules.Echoes), rules.Admissions)
	admitted = append(admitted, OpenWork(rep.Tail, rules.Headings, rules.Criteria)...)
	if reason, ok := Contradiction(admitted); !ok {
		v.Reject("contradiction", reason)
		return v, false
	}
	v.Pass("contradiction", "")
	promise, found := ClosingPromise(rep.Tail)
	if reason, ok := Signal(st, found, stage); !ok {
		if rep.PromiseFound && !found {
			reason += " (a promise tag counts only alone on the line that closes the final message, or on the line before the final status line: not quoted, fenced, in backticks, or inside a sentence)"
		}
		v.Reject("signal", reason)
		return v, false
	}
	v.Pass("signal", "")
	layer := verify.StringMatch
	if stage.Criteria.VerificationMethod != verify.StringMatch {
		layer = "promise"
	}
	if reason, ok := Promise(stage.Criteria.Promise, promise); !ok {
		v.Reject(layer, reason)
		return v, false
	}
	v.Pass(layer, "Promise found in output")
	if rules.Criteria != nil && !v.Criteria(CriteriaLeft(rep.Tail, rules.Criteria)) {
		return v, false
	}
	return v, true
}

// Contradiction is layer 1: admitted are the contradiction phrases the
// agent's final message admits ([Admissions]). Any of them beside a claim
// rejects it; reason names them.
func Contradiction(admitted []string) (reason string, ok bool) {
	if len(admitted) == 0 {
		return "", true
	}
	return fmt.Sprintf("%s (%s)", ContradictionLog, strings.Join(admitted, ", ")), false
}

// Signal is layer 2: a claim needs both an explicit DONE status and a
// promise ("silent completion is not valid").
func Signal(st status.Status, promiseFound bool, stage plan.Stage) (reason string, ok bool) {
	switch {
	case st != status.Done:
		return fmt.Sprintf("a promise without an explicit DONE status: end with RALPH_STATUS: DONE when the %s stage is complete", stage.Name), false
	case !promiseFound:
		return fmt.Sprintf("DONE without the completion promise: print <promise>%s</promise> when the %s stage is complete", stage.Criteria.Promise, stage.Name), false
	}
	return "", true
}

// Promise is layer 3: the content of the <promise> tag, got, must be the
// stage's promise want (ignoring case and surrounding space). The promise
// word elsewhere in the output does not count: a tag that promises
// something else is no promise of this stage. (The string_match method,
// which this layer stands for, finds want in the output by the seed's
// substring rule; a tag equal to want satisfies it.)
func Promise(want, got string) (reason string, ok bool) {
	if strings.EqualFold(strings.TrimSpace(got), strings.TrimSpace(want)) {
		return "", true
	}
	return fmt.Sprintf("Promise '%s' not found in output (got <promise>%s</promise>)", want, got), false
}

// FinalStatus is the claim of a rotation: fromOutput is the status of the
// output's final line, fromFile the word of .ralph/status (ok false when
// the agent wrote none, or none ralph-ci knows). When both exist and
// differ there is no claim: conflict says so.
func FinalStatus(fromOutput, fromFile status.Status, fileOK bool) (st status.Status, conflict string) {
	switch {
	case !fileOK:
		return fromOutput, ""
	case fromOutput == status.None || fromOutput == status.Never || fromOutput == fromFile:
		return fromFile, ""
	}
	return status.None, fmt.Sprintf("the final status line says %s but .ralph/status says %s: no claim; give one status", fromOutput, fromFile)
}

// Method records the result of the stage's verification method: one
// layer for the method and one per multi_stage stage; a failed method
// rejects the claim with its reason. It reports whether the claim holds.
func (v *Verdict) Method(method string, r verify.Result) bool {
	v.Layers = append(v.Layers, MethodLayers(method, r)...)
	if !r.Passed {
		v.Status, v.Reason = status.Rejected, r.Reason
	}
	return r.Passed
}

// MethodLayers turns a method's result into report layers: one for the
// method, then one per multi_stage stage ("multi_stage/NAME").
func MethodLayers(method string, r verify.Result) []report.Layer {
	out := []report.Layer{{Name: method, Passed: r.Passed, Detail: r.Reason}}
	for _, s := range r.Stages {
		d := s.Reason
		if !s.Required {
			d = "optional: " + d
		}
		out = append(out, report.Layer{Name: method + "/" + s.Name, Passed: s.Passed, Detail: d})
	}
	return out
}
