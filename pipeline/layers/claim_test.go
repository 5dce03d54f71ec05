package layers

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// phrases are the default contradiction phrases of the spec (Layer 1).
var phrases = []string{"requires manual", "cannot be automated", "could not complete", "needs human", "manual intervention"}

func coder(method string) plan.Stage {
	return plan.Stage{Name: "coder", Criteria: schema.Criteria{Promise: "CODER_DONE", VerificationMethod: method}}
}

// names lists the layers of a verdict as "name:passed".
func names(ls []report.Layer) string {
	var out []string
	for _, l := range ls {
		s := "fail"
		if l.Passed {
			s = "pass"
		}
		out = append(out, l.Name+":"+s)
	}
	return strings.Join(out, " ")
}

// One case per rule of Layers 1 and 2 and the promise layer: a claim is
// a DONE (TASK_COMPLETE) status or a promise, and the first layer that
// fails rejects it.
func TestClaim(t *testing.T) {
	done := agent.Report{Status: status.Done, PromiseFound: true, Promise: "CODER_DONE", Phrases: []string{"CODER_DONE"}, Tail: "Done.\n<promise>CODER_DONE</promise>\nRALPH_STATUS: DONE\n"}
	with := func(r agent.Report, edit func(*agent.Report)) agent.Report { edit(&r); return r }
	for _, tc := range []struct {
		name    string
		status  status.Status
		rep     agent.Report
		method  string
		ok      bool
		claimed bool
		status2 status.Status // the verdict's status
		layers  string
		reason  string // a part of the reason
	}{
		{name: "no claim: CONTINUE without a promise", status: status.Continue, rep: agent.Report{Status: status.Continue}, method: verify.StringMatch,
			status2: status.Continue},
		{name: "no status at all is no claim (silent completion is not valid)", status: status.None, rep: agent.Report{Status: status.None}, method: verify.StringMatch,
			status2: status.None},
		{name: "Layer 1: contradiction phrase beside the claim rejects it", status: status.Done,
			rep: with(done, func(r *agent.Report) {
				r.Tail = "The deploy requires manual steps and needs human review.\nRALPH_STATUS: DONE\n"
			}),
			method: verify.StringMatch, claimed: true, status2: status.Rejected, layers: "contradiction:fail",
			reason: "CONTRADICTION: claimed completion while admitting failure (requires manual, needs human)"},
		{name: "Layer 1 applies to a promise without DONE too", status: status.Continue,
			rep: with(done, func(r *agent.Report) {
				r.Status = status.Continue
				r.Tail = "This Cannot Be Automated.\n<promise>CODER_DONE</promise>"
			}),
			method: verify.StringMatch, claimed: true, status2: status.Rejected, layers: "contradiction:fail", reason: "(cannot be automated)"},
		{name: "Layer 2: a promise without an explicit DONE", status: status.Continue,
			rep:    with(done, func(r *agent.Report) { r.Status = status.Continue }),
			method: verify.StringMatch, claimed: true, status2: status.Rejected, layers: "contradiction:pass signal:fail",
			reason: "a promise without an explicit DONE status: end with RALPH_STATUS: DONE when the coder stage is complete"},
		{name: "Layer 2: DONE without the promise", status: status.Done,
			rep:    agent.Report{Status: status.Done},
			method: verify.StringMatch, claimed: true, status2: status.Rejected, layers: "contradiction:pass signal:fail",
			reason: "DONE without the completion promise: print <promise>CODER_DONE</promise> when the coder stage is complete"},
		{name: "promise: another promise than the stage's", status: status.Done,
			rep: with(done, func(r *agent.Report) {
				r.Promise, r.Phrases, r.Tail = "ALL_DONE", nil, "<promise>ALL_DONE</promise>\n\nRALPH_STATUS: DONE"
			}),
			method: verify.StringMatch, claimed: true, status2: status.Rejected, layers: "contradiction:pass signal:pass string_match:fail",
			reason: "Promise 'CODER_DONE' not found in output (got <promise>ALL_DONE</promise>)"},
		{name: "promise layer is named promise before another method", status: status.Done,
			rep: with(done, func(r *agent.Report) {
				r.Promise, r.Tail = "IN_PROGRESS", "<promise>IN_PROGRESS</promise>\nRALPH_STATUS: DONE"
			}),
			method: "external", claimed: true, status2: status.Rejected, layers: "contradiction:pass signal:pass promise:fail", reason: "not found in output"},
		{name: "all three pass with string_match", status: status.Done, rep: done, method: verify.StringMatch,
			ok: true, claimed: true, status2: status.Done, layers: "contradiction:pass signal:pass string_match:pass"},
		{name: "all three pass before another method", status: status.Done, rep: done, method: "semantic",
			ok: true, claimed: true, status2: status.Done, layers: "contradiction:pass signal:pass promise:pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := Claim(tc.status, tc.rep, coder(tc.method), Rules{Admissions: phrases})
			if ok != tc.ok || v.Claimed != tc.claimed || v.Status != tc.status2 || v.Accepted {
				t.Errorf("ok %v claimed %v status %q accepted %v; want ok %v claimed %v status %q", ok, v.Claimed, v.Status, v.Accepted, tc.ok, tc.claimed, tc.status2)
			}
			if got := names(v.Layers); got != tc.layers {
				t.Errorf("layers %q, want %q", got, tc.layers)
			}
			if !strings.Contains(v.Reason, tc.reason) || (tc.reason == "") != (v.Reason == "") {
				t.Errorf("reason %q, want %q", v.Reason, tc.reason)
			}
		})
	}
}

// The method's result becomes one layer, plus one per multi_stage stage
// ("optional: " for the stages that are not required); a failed method
// rejects the claim with its reason.
func TestMethod(t *testing.T) {
	var v Verdict
	v.Status = status.Done
	if !v.Method("external", verify.Result{Passed: true, Reason: "exit 0"}) || v.Status != status.Done {
		t.Fatalf("a passed method rejected the claim: %+v", v)
	}
	r := verify.Result{Reason: "stage lint failed", Stages: []verify.StageResult{
		{Name: "lint", Required: true, Reason: "exit 1"}, {Name: "docs", Passed: true, Reason: "ok"}}}
	if v.Method("multi_stage", r) || v.Status != status.Rejected || v.Reason != "stage lint failed" {
		t.Fatalf("a failed method: %+v", v)
	}
	want := []report.Layer{{Name: "external", Passed: true, Detail: "exit 0"},
		{Name: "multi_stage", Detail: "stage lint failed"}, {Name: "multi_stage/lint", Detail: "exit 1"},
		{Name: "multi_stage/docs", Passed: true, Detail: "optional: ok"}}
	if len(v.Layers) != len(want) {
		t.Fatalf("layers %+v", v.Layers)
	}
	for i := range want {
		if v.Layers[i] != want[i] {
			t.Errorf("layer %d = %+v, want %+v", i, v.Layers[i], want[i])
		}
	}
}

// The promise is read as strictly as the status line: alone on a line
// that closes the final message (or before the final status line), not
// quoted, fenced, in backticks or in a sentence of intent.
func TestClosingPromise(t *testing.T) {
	for _, tc := range []struct {
		name, tail, want string
		found            bool
	}{
		{"before the status", "I fixed div.\n\n<promise>P</promise>\n\nRALPH_STATUS: DONE\n", "P", true},
		{"after the status", "RALPH_STATUS: DONE\n<promise> P </promise>", "P", true},
		{"decorated", "**<promise>P</promise>**\nRALPH_STATUS: DONE", "P", true},
		{"alone at the end", "done\n<PROMISE>P</Promise>\n", "P", true},
		{"in backticks", "`<promise>P</promise>`\nRALPH_STATUS: DONE", "", false},
		{"quoted", "> <promise>P</promise>\nRALPH_STATUS: DONE", "", false},
		{"indented", "    <promise>P</promise>\nRALPH_STATUS: DONE", "", false},
		{"fenced", "```\n<promise>P</promise>\n```\nRALPH_STATUS: DONE", "", false},
		{"fenced at the end", "```\nRALPH_STATUS: DONE\n<promise>P</promise>\n", "", false},
		{"in a sentence of intent", "I'll print <promise>P</promise> once the tests pass.\nRALPH_STATUS: DONE", "", false},
		{"intent, then a pasted log ending in the status", "I'll print <promise>P</promise> once it passes:\n$ pytest\n3 passed\nRALPH_STATUS: DONE", "", false},
		{"a pasted log above the closing lines", "<promise>P</promise>\nRALPH_STATUS: DONE\n(that was the last run's output)\nRALPH_STATUS: DONE", "", false},
		{"a line after the promise takes it back", "<promise>P</promise>\nnot yet, actually", "", false},
	} {
		got, found := ClosingPromise(tc.tail)
		if got != tc.want || found != tc.found {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, found, tc.want, tc.found)
		}
	}
}
