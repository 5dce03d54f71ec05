package engine

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
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

// judge decides whether a rotation's completion claim holds. A claim is a
// DONE/TASK_COMPLETE status or a promise; it is accepted only when both
// are there (an explicit signal: silent completion is not valid), no
// contradiction phrase sits beside it, and the stage's verification method
// confirms the promise. A rejected claim counts as non-DONE.
func judge(status agent.Status, rep agent.Report, stage plan.Stage, phrases []string) verdict {
	v := verdict{Status: statusWord(status)}
	v.Claimed = status == agent.StatusDone || rep.PromiseFound
	if !v.Claimed {
		return v
	}
	reject := func(layer, reason string) verdict {
		v.Status, v.Reason = state.StatusRejected, reason
		v.Layers = append(v.Layers, reporters.Layer{Name: layer, Detail: reason})
		return v
	}
	pass := func(layer string) { v.Layers = append(v.Layers, reporters.Layer{Name: layer, Passed: true}) }
	if found := intersect(rep.Phrases, phrases); len(found) > 0 {
		return reject("contradiction", fmt.Sprintf("%s (%s)", contradictionLog, strings.Join(found, ", ")))
	}
	pass("contradiction")
	want := stage.Criteria.Promise
	switch {
	case status != agent.StatusDone:
		return reject("signal", fmt.Sprintf("a promise without an explicit DONE status: end with RALPH_STATUS: DONE when the %s stage is complete", stage.Name))
	case !rep.PromiseFound:
		return reject("signal", fmt.Sprintf("DONE without the completion promise: print <promise>%s</promise> when the %s stage is complete", want, stage.Name))
	}
	pass("signal")
	// string_match: the promise text must appear in the output.
	if !contains(rep.Phrases, want) {
		return reject("string_match", fmt.Sprintf("Promise '%s' not found in output (got <promise>%s</promise>)", want, rep.Promise))
	}
	pass("string_match")
	v.Accepted = true
	return v
}

// checkSupported refuses, before anything runs, specs whose verification
// this version cannot perform yet, rather than pretending to verify them.
func checkSupported(p *project.Project) error {
	for _, sp := range p.Specs {
		for _, st := range sp.Stages {
			if m := st.Criteria.VerificationMethod; m != "string_match" {
				return fmt.Errorf("%s: stage %s uses verification method %q, which this ralph-ci version cannot run yet; use string_match or disable the stage (stages.%s.enabled: false)", sp.Path, st.Name, m, st.Name)
			}
		}
	}
	return nil
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
