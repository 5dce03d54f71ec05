package layers

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/schema"
)

func TestReviewDueAndNext(t *testing.T) {
	for _, tc := range []struct {
		i             int
		prev, stage   string
		stages, every int
		due           bool
		next          int
	}{
		{0, "", "coder", 4, 5, true, 1},         // every 5th (0)
		{1, "coder", "reviewer", 4, 5, true, 2}, // phase boundary
		{3, "tester", "qa", 4, 5, true, 5},      // final task and boundary
		{4, "qa", "qa", 4, 5, false, 5},         // a verification pass
		{5, "qa", "qa", 4, 5, true, 10},         // every 5th
		{1, "coder", "coder", 1, 5, false, 5},   // single stage
		{2, "coder", "coder", 1, 2, true, 4},
	} {
		if got := ReviewDue(tc.i, tc.prev, tc.stage, tc.stages, tc.every); got != tc.due {
			t.Errorf("%+v: due %v", tc, got)
		}
		if got := NextReview(tc.i, tc.stages, tc.every); got != tc.next {
			t.Errorf("%+v: next %d", tc, got)
		}
	}
}

func TestReviewSignalFindingsAndPath(t *testing.T) {
	for _, tc := range []struct {
		out, signal, findings string
		pathB                 bool
	}{
		{"all good\nREVIEW_PASS", "REVIEW_PASS", "all good", false},
		{"REVIEW_PASS\nbut then\nREVIEW_FAIL\n\n", "REVIEW_FAIL", "REVIEW_PASS\nbut then", false},
		{"## Findings\nx\n## Feedback for Revision\nfix a.go:3\n**REVIEW_FAIL**", "REVIEW_FAIL", "fix a.go:3", false},
		{"REVIEW_FAIL\nI am not sure", "", "REVIEW_FAIL\nI am not sure", false},
		{"", "", "", false},
		{"SPEC_ISSUE: the spec contradicts itself\nREVIEW_FAIL", "REVIEW_FAIL", "SPEC_ISSUE: the spec contradicts itself", true},
		{"needs a person\n  path: b\nREVIEW_FAIL", "REVIEW_FAIL", "needs a person\n  path: b", true},
	} {
		if got := ReviewSignal(tc.out); got != tc.signal {
			t.Errorf("%q: signal %q", tc.out, got)
		}
		if got := ReviewFindings(tc.out); got != tc.findings {
			t.Errorf("%q: findings %q", tc.out, got)
		}
		if got := PathB(tc.out); got != tc.pathB {
			t.Errorf("%q: path B %v", tc.out, got)
		}
	}
	if s := Summary("- one\n\n* two\nthree\nfour"); s != "one; two; three" {
		t.Errorf("summary %q", s)
	}
	if s := Summary(""); s != "none" {
		t.Errorf("summary %q", s)
	}
	if f := ReviewFindings(strings.Repeat("x", 2*MaxFindings)); len(f) > MaxFindings+4 {
		t.Errorf("findings not capped: %d", len(f))
	}
}

// The Review Loop, one case per branch: REVIEW_PASS proceeds; REVIEW_FAIL
// below the max asks for a fix rotation (Path A) unless the findings are
// spec-level (Path B: suggestions, proceed); REVIEW_FAIL at the max
// proceeds with a warning; neither signal is REVIEW_PASS (no signal).
func TestDecideReview(t *testing.T) {
	for _, tc := range []struct {
		name      string
		out       string
		it        int
		path      ReviewPath
		ok        bool
		loop      Loop
		entry     string // status and action of the progress entry
		layer     string
		warning   bool
		suggested bool
	}{
		{"REVIEW_PASS", "fine\nREVIEW_PASS", 1, ReviewPassed, true, LoopClear,
			"- Status: REVIEW_PASS\n- Findings: fine\n- Action: proceeded", "REVIEW_PASS (iteration 1)", false, false},
		{"neither signal", "I could not decide", 2, ReviewNoSignal, true, LoopClear,
			"- Status: REVIEW_PASS (no signal)", "REVIEW_PASS (no signal)", false, false},
		{"REVIEW_FAIL: Path A", "a.go:3 is wrong\nREVIEW_FAIL", 1, ReviewPathA, false, LoopFix,
			"- Status: REVIEW_FAIL\n- Findings: a.go:3 is wrong\n- Action: fix task added",
			"REVIEW_FAIL (review iteration 1 of 3): fix the reviewer's findings, then claim completion again. Findings: a.go:3 is wrong", false, false},
		{"REVIEW_FAIL: Path B", "the spec contradicts itself\nPATH: B\nREVIEW_FAIL", 2, ReviewPathB, true, LoopClear,
			"- Action: warnings appended, proceeded", "REVIEW_FAIL with spec-level findings (Path B): suggestions appended under ## Review Suggestions in .ralph/progress/a.md", false, true},
		{"REVIEW_FAIL at max iterations", "still wrong\nPATH: B\nREVIEW_FAIL", 3, ReviewMaxed, true, LoopClear,
			"- Status: REVIEW_FAIL\n- Findings: still wrong\n- Action: proceeded", "REVIEW_FAIL at max iterations (3): proceeding with best available implementation", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := DecideReview(tc.out, tc.it, 3)
			if r.Path != tc.path || r.Iteration != tc.it {
				t.Fatalf("path %v iteration %d, want %v %d", r.Path, r.Iteration, tc.path, tc.it)
			}
			if e := r.Entry(4); !strings.HasPrefix(e, "\n### Review: execution (Task 4, Iteration ") || !strings.Contains(e, tc.entry) {
				t.Errorf("entry %q, want %q", e, tc.entry)
			}
			if w := r.Warning(); (w != "") != tc.warning || tc.warning && w != "Max iterations (3) reached without REVIEW_PASS.\nProceeding with best available implementation.\nOutstanding issues: still wrong\nPATH: B" {
				t.Errorf("warning %q", w)
			}
			if s := r.Suggestions(4); (s != "") != tc.suggested || tc.suggested && !strings.HasPrefix(s, "\n## Review Suggestions\n\n(Task 4, iteration 2)\n") {
				t.Errorf("suggestions %q", s)
			}
			v := Verdict{Status: status.Done}
			ok := v.Review(r, ".ralph/progress/a.md")
			if ok != tc.ok || v.Loop != tc.loop || len(v.Layers) != 1 || v.Layers[0].Detail != tc.layer || v.Layers[0].Passed != tc.ok {
				t.Errorf("ok %v loop %v layers %+v; want ok %v loop %v detail %q", ok, v.Loop, v.Layers, tc.ok, tc.loop, tc.layer)
			}
			if tc.path == ReviewPathA && (v.Status != status.Rejected || v.FixIteration != tc.it+1 || v.Findings != "a.go:3 is wrong") {
				t.Errorf("Path A verdict %+v", v)
			}
		})
	}
}

// "When to Run": a phase boundary, every Nth task and the final task;
// otherwise "Skipping artifact review (next at task N)".
func TestSkipMessage(t *testing.T) {
	if got := SkipMessage(4, 4, 5); got != "Skipping artifact review (next at task 5)" {
		t.Errorf("SkipMessage = %q", got)
	}
}

// "if reviewIteration is missing or invalid, default to 1".
func TestReviewIteration(t *testing.T) {
	for _, tc := range []struct{ pending, want int }{{0, 1}, {-3, 1}, {4, 1}, {2, 2}, {3, 3}} {
		if got := ReviewIteration(tc.pending, 3); got != tc.want {
			t.Errorf("ReviewIteration(%d, 3) = %d, want %d", tc.pending, got, tc.want)
		}
	}
}

// "Phase agent fails during revision: retry fix task once; if fails again,
// use original implementation and proceed." A fix rotation that did not
// fail (CONTINUE, ROTATE) is left alone.
func TestFixFailed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   status.Status
		timedOut bool
		failures int
		gaveUp   bool
		loop     Loop
		accepted bool
		reason   string
	}{
		{"CONTINUE is no failure", status.Continue, false, 0, false, LoopKeep, false, ""},
		{"first failure: retried once", status.Rejected, false, 0, false, LoopFixFailed, false, "rejected; the review fix failed, retrying once (review iteration 2)"},
		{"silent rotation fails", status.None, false, 0, false, LoopFixFailed, false, "the review fix failed, retrying once (review iteration 2)"},
		{"timed out fails", status.Continue, true, 0, false, LoopFixFailed, false, "the review fix failed, retrying once (review iteration 2)"},
		{"second failure: the original implementation proceeds", status.Stuck, false, 1, true, LoopClear, true, ""},
	} {
		v := Verdict{Status: tc.status}
		if tc.status == status.Rejected {
			v.Reason = "rejected"
		}
		gaveUp := v.FixFailed(tc.timedOut, 2, tc.failures)
		if gaveUp != tc.gaveUp || v.Loop != tc.loop || v.Accepted != tc.accepted || (tc.reason != "" && v.Reason != tc.reason) {
			t.Errorf("%s: gave up %v loop %v accepted %v reason %q", tc.name, gaveUp, v.Loop, v.Accepted, v.Reason)
		}
		if tc.gaveUp && (names(v.Layers) != "review:pass" || v.Layers[0].Detail != FixGaveUp) {
			t.Errorf("%s: layers %+v", tc.name, v.Layers)
		}
	}
}

// The Review Delegation Prompt: spec, iteration of max, task, changed
// files, the upstream artifact, and the prior findings from iteration 2 on.
func TestReviewPrompt(t *testing.T) {
	sp := plan.Spec{Title: "Login", Front: &schema.FrontMatter{Completion: &schema.Completion{Outcome: "users log in", AcceptanceCriteria: []string{"a form"}}}}
	sp.Path = "specs/login.spec.md"
	in := ReviewInput{Spec: sp, Stage: plan.Stage{Name: "coder", Criteria: schema.Criteria{Description: "write it", Promise: "CODER_DONE"}},
		Task: 2, Iteration: 1, Max: 3, Source: "# Login\n", Prior: "old findings"}
	p := ReviewPrompt(in)
	for _, want := range []string{
		"You are reviewing the execution artifact for spec: Login\nSpec path: specs/login.spec.md\nReview iteration: 1 of 3\n",
		"Task 2, stage coder: write it\nPromise: CODER_DONE\nOutcome: users log in\n- [ ] a form\n",
		"Changed files:\n(none in this rotation)\n", "Upstream artifacts (for cross-referencing):\n# Login\n",
		"Apply the execution rubric.", "End with one last line: REVIEW_PASS or REVIEW_FAIL.",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "Prior findings") {
		t.Error("iteration 1 has no prior findings")
	}
	in.Iteration, in.Changed = 2, []string{"a.go", "b.go"}
	p = ReviewPrompt(in)
	if !strings.Contains(p, "Prior findings (from iteration 1):\nold findings\n") || !strings.Contains(p, "Changed files:\na.go\nb.go\n") {
		t.Errorf("iteration 2:\n%s", p)
	}
}

// Summary caps a long line of findings at 300 bytes, on a rune boundary.
func TestSummaryCapped(t *testing.T) {
	s := Summary(strings.Repeat("é", 400))
	if len(s) > 300+len("…") || !strings.HasSuffix(s, "…") {
		t.Errorf("summary of %d bytes: %q", len(s), s)
	}
}
