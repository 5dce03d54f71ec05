package prompt

import (
	"fmt"
	"strings"
	"testing"
)

// A handoff that collected many rejections keeps the agent's text and the
// last MaxNotes notes; the older ones become one counted line, and pruning
// again adds to the count.
func TestPruneNotesKeepsTheAgentsTextAndTheLastNotes(t *testing.T) {
	const n, dropped = MaxNotes + 7, 7
	h := "Agent: routes written.\n"
	for i := 1; i <= n; i++ {
		h += Note(fmt.Sprintf("reason %d", i))
		if i == 5 {
			h += "Agent: tests next.\n"
		}
	}
	got := PruneNotes(h)
	wants := []string{"Agent: routes written.\n", "Agent: tests next.\n", fmt.Sprintf("> ralph-ci: %d earlier rejected claims left out", dropped)}
	for i := dropped + 1; i <= n; i++ {
		wants = append(wants, fmt.Sprintf("reason %d\n", i))
	}
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("pruned handoff lacks %q:\n%s", want, got)
		}
	}
	for i := 1; i <= dropped; i++ {
		if strings.Contains(got, fmt.Sprintf("reason %d\n", i)) {
			t.Errorf("note %d kept:\n%s", i, got)
		}
	}
	again := PruneNotes(got + Note("reason a") + Note("reason b"))
	if !strings.Contains(again, fmt.Sprintf("> ralph-ci: %d earlier rejected claims left out", dropped+2)) || strings.Count(again, "earlier rejected") != 1 ||
		strings.Count(again, notePrefix) != MaxNotes || !strings.HasSuffix(again, "reason b\n") {
		t.Errorf("pruned twice:\n%s", again)
	}
	if PruneNotes(got) != got {
		t.Error("pruning a pruned handoff changed it")
	}
}

// A note is one line, its reason bounded.
func TestNoteIsOneBoundedLine(t *testing.T) {
	n := Note("Command exited with 1\nstdout:\n" + strings.Repeat("x", 2*MaxFeedback))
	if strings.Count(n, "\n") != 2 || !strings.HasPrefix(n, "\n"+notePrefix+"Command exited with 1 stdout: x") ||
		!strings.Contains(n, "more bytes left out]") || len(n) > MaxFeedback+200 {
		t.Errorf("note %q…", n[:min(len(n), 120)])
	}
}

// The prompt carries the end of a long handoff and of long guardrails,
// says what it left out, and bounds each feedback item; its size stays flat
// however much was rejected.
func TestBuildIsBounded(t *testing.T) {
	agentText := strings.Repeat("a line the agent wrote\n", 4*MaxHandoff/23) + "THE LATEST LINE\n"
	var notes strings.Builder
	for i := range 5000 {
		notes.WriteString(Note(fmt.Sprintf("Promise 'X' not found (%d)", i)))
	}
	in := Input{SpecPath: "specs/a.spec.md", HandoffPath: ".ralph/handoffs/a.md", GuardrailPath: ".ralph/guardrails.md",
		Handoff: agentText + notes.String(), Guardrails: strings.Repeat("g\n", MaxGuardrails),
		Feedback: []string{strings.Repeat("f", 3*MaxFeedback)}}
	p := Build(in)
	if len(p) > MaxHandoff+MaxGuardrails+MaxFeedback+4096 {
		t.Errorf("prompt of %d bytes", len(p))
	}
	for _, want := range []string{"THE LATEST LINE", "(4999)", fmt.Sprintf("%d earlier rejected claims left out", 5000-MaxNotes),
		"bytes of .ralph/handoffs/a.md are left out of this prompt", "bytes of .ralph/guardrails.md are left out of this prompt",
		"more bytes left out]"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	small := Build(Input{Handoff: "short", Guardrails: "few", Feedback: []string{"why"}})
	if strings.Contains(small, "left out") {
		t.Errorf("a small prompt says something was left out:\n%s", small)
	}
}

// Notes of one reason collapse into one line counting them, at the place
// of the latest; other reasons and the agent's text stay; pruning again
// changes nothing, and a new note of a counted reason adds to its count.
func TestPruneNotesCollapsesIdenticalNotes(t *testing.T) {
	h := "Agent: started.\n" + Note("reason a") + Note("reason b") + "Agent: tried again.\n" + Note("reason a") + Note("reason a")
	got := PruneNotes(h)
	want := "Agent: started.\n" + Note("reason b") + "Agent: tried again.\n\n> ralph-ci: 3 completion claims were rejected: reason a\n"
	if got != want {
		t.Fatalf("collapsed:\n%s\nwant:\n%s", got, want)
	}
	if PruneNotes(got) != got {
		t.Error("pruning a collapsed handoff changed it")
	}
	if again := PruneNotes(got + Note("reason a")); !strings.HasSuffix(again, "\n> ralph-ci: 4 completion claims were rejected: reason a\n") || strings.Count(again, "reason a") != 1 {
		t.Errorf("one more note:\n%s", again)
	}
	if !HasNote(got, "reason  a") || HasNote(got, "reason c") {
		t.Error("HasNote does not find the collapsed note by its reason")
	}
}

// The prompt says a thing once: after 50 identical rejections it is at
// most 600 bytes larger than the first rotation's (issue 34), the reason
// said once, with its count, and not again under Feedback.
func TestPromptAfterFiftyIdenticalRejections(t *testing.T) {
	reason := "Promise 'IMPLEMENTATION_COMPLETE' not found in output: print <promise>IMPLEMENTATION_COMPLETE</promise> alone on its line when the coder stage is complete, then the status line"
	in := Input{SpecPath: "specs/a.spec.md", SpecBody: "# A\n\nBuild it.", Stage: "coder", Iteration: 1, MaxIterations: 100,
		Criteria: []string{"it is built"}, Promise: "IMPLEMENTATION_COMPLETE", Method: "string_match",
		HandoffPath: ".ralph/handoffs/a.spec-16c5b2.md", GuardrailPath: ".ralph/guardrails.md"}
	first := Build(in)
	for i := 1; i <= 50; i++ {
		in.Handoff = PruneNotes(in.Handoff + Note(reason)) // as the engine notes a rejection
		in.Iteration, in.Rejected = i+1, reason
	}
	after := Build(in)
	if len(after)-len(first) > 600 {
		t.Errorf("the prompt grew by %d bytes after 50 identical rejections (at most 600):\n%s", len(after)-len(first), after)
	}
	if strings.Count(after, reason) != 1 || !strings.Contains(after, "50 completion claims were rejected: "+reason) {
		t.Errorf("the reason is not said once with its count:\n%s", after)
	}
	in.Handoff = "" // the agent emptied its handoff: the reason is still said, under Feedback
	if p := Build(in); !strings.Contains(p, "## Feedback from ralph-ci\n- The last completion claim was rejected: "+reason) {
		t.Errorf("without the note the reason is not under Feedback:\n%s", p)
	}
}
