package engine

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/reporters"
)

// contradictionLog is logged, verbatim, when a claim admits failure.
const contradictionLog = "CONTRADICTION: claimed completion while admitting failure"

// verdict is the judgement of one rotation's output.
type verdict struct {
	Status   string // the effective status for the counter (state.Status*)
	Claimed  bool   // the agent claimed completion
	Accepted bool   // ... and the claim held
	Reason   string // why a claim was rejected
	// Layers are the verdicts of the layers and the method, in order.
	Layers []reporters.Layer
}

// pass records a layer that passed.
func (v *verdict) pass(layer, detail string) {
	v.Layers = append(v.Layers, reporters.Layer{Name: layer, Passed: true, Detail: detail})
}

// reject records a layer that rejected the claim: the claim counts as
// non-DONE and reason goes to the handoff and the next prompt.
func (v *verdict) reject(layer, reason string) {
	v.Status, v.Reason, v.Accepted = state.StatusRejected, reason, false
	v.Layers = append(v.Layers, reporters.Layer{Name: layer, Detail: reason})
}

// judge runs the layers that need no process on a rotation's output. A
// claim is a DONE/TASK_COMPLETE status or a promise; it passes only when
// both are there (an explicit signal: silent completion is not valid), no
// contradiction phrase sits beside it, and the stage's promise appears in
// the output (string_match; for the other methods a "promise" layer
// before the method). ok tells that the claim passed so far: the
// verifier guard, the method and the artifact review follow (claim.go).
func judge(status agent.Status, rep agent.Report, stage plan.Stage, phrases []string) (v verdict, ok bool) {
	v = verdict{Status: statusWord(status)}
	v.Claimed = status == agent.StatusDone || rep.PromiseFound
	if !v.Claimed {
		return v, false
	}
	if found := intersect(rep.Phrases, phrases); len(found) > 0 {
		v.reject("contradiction", fmt.Sprintf("%s (%s)", contradictionLog, strings.Join(found, ", ")))
		return v, false
	}
	v.pass("contradiction", "")
	want := stage.Criteria.Promise
	switch {
	case status != agent.StatusDone:
		v.reject("signal", fmt.Sprintf("a promise without an explicit DONE status: end with RALPH_STATUS: DONE when the %s stage is complete", stage.Name))
		return v, false
	case !rep.PromiseFound:
		v.reject("signal", fmt.Sprintf("DONE without the completion promise: print <promise>%s</promise> when the %s stage is complete", want, stage.Name))
		return v, false
	}
	v.pass("signal", "")
	layer := verify.StringMatch
	if stage.Criteria.VerificationMethod != verify.StringMatch {
		layer = "promise"
	}
	if !contains(rep.Phrases, want) {
		v.reject(layer, fmt.Sprintf("Promise '%s' not found in output (got <promise>%s</promise>)", want, rep.Promise))
		return v, false
	}
	v.pass(layer, "Promise found in output")
	return v, true
}

// methodLayers turns a method's result into report layers: one for the
// method, then one per multi_stage stage ("multi_stage/NAME").
func methodLayers(method string, r verify.Result) []reporters.Layer {
	out := []reporters.Layer{{Name: method, Passed: r.Passed, Detail: r.Reason}}
	for _, s := range r.Stages {
		d := s.Reason
		if !s.Required {
			d = "optional: " + d
		}
		out = append(out, reporters.Layer{Name: method + "/" + s.Name, Passed: s.Passed, Detail: d})
	}
	return out
}

func statusWord(s agent.Status) string {
	if s == agent.StatusNone {
		return state.StatusNone
	}
	return string(s)
}

func intersect(found, want []string) []string {
	var out []string
	for _, w := range want {
		if contains(found, w) {
			out = append(out, w)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
