package layers

import (
	"strings"
	"testing"
)

// The judge reads the criteria, the diff and the final message, each
// bounded: a huge diff still names every file first, and the prompt asks
// for the one-line answer ParseJudge reads.
func TestSemanticPrompt(t *testing.T) {
	stat := " calc.py | 3 ++-\n new.py  | 9999 ++++\n 2 files changed"
	diff := "diff --git a/calc.py b/calc.py\n" + strings.Repeat("+x = 1\n", 5000)
	d := DiffSummary(stat, diff, map[string]string{"notes.txt": "hello"})
	if len(d) > JudgeDiffBytes+64 || !strings.HasPrefix(d, "calc.py | 3 ++-\n new.py") || !strings.Contains(d, "more bytes left out") {
		t.Errorf("summary of %d bytes:\n%.300s", len(d), d)
	}
	if small := DiffSummary("a | 1 +", "+a", map[string]string{"b.txt": "new text"}); !strings.Contains(small, "new file b.txt:\nnew text") {
		t.Errorf("an untracked new file is not shown: %q", small)
	}
	final := strings.Repeat("é", JudgeFinalBytes) // two bytes a rune: cut on a rune boundary
	p := SemanticPrompt(SemanticInput{Criteria: []string{"add() returns the sum"}, Diff: d, Final: final})
	for _, want := range []string{"- add() returns the sum", "<<<DIFF\n", "<<<MESSAGE\n", "NOT_VERIFIED: <reason>", "in any language"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if !strings.Contains(p, "[… "+"6000 more bytes left out]") || strings.Contains(p, "\uFFFD") {
		t.Errorf("the final message is not bounded on a rune boundary")
	}
	if p := SemanticPrompt(SemanticInput{}); !strings.Contains(p, "(none listed") || !strings.Contains(p, "(no change since the stage started)") {
		t.Errorf("empty input:\n%s", p)
	}
}
