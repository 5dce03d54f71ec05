package tiers

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// Stages as ralph-ci names them. The spec's gl-test-writer is the tester
// stage, its implementer the coder stage; the reviewer and qa stages get
// what the test writer gets (behaviour, never code).
const (
	stageCoder  = "coder"
	stageTester = "tester"
)

// CodeRemoved replaces code found in human feedback.
const CodeRemoved = "[code removed: behavioural feedback only]"

var (
	fenceRE    = lazyregexp.New("(?s)(```|~~~).*?(```|~~~|$)")
	inlineRE   = lazyregexp.New("`[^`\n]*`")
	testNameRE = lazyregexp.New(`\b(Test[A-Z_][A-Za-z0-9_]*|test_[a-z0-9_]+)\b`)
)

// Behavioural keeps what a human said about behaviour and drops code:
// fenced blocks, inline code, indented code and diff lines become
// CodeRemoved. The feedback is context, never run.
func Behavioural(text string) string {
	out := fenceRE.ReplaceAllString(text, CodeRemoved)
	out = inlineRE.ReplaceAllStringFunc(out, func(code string) string {
		return CodeRemoved
	})
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"),
			strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"):
			line = CodeRemoved
		}
		if line == CodeRemoved && len(lines) > 0 && lines[len(lines)-1] == CodeRemoved {
			continue
		}
		lines = append(lines, line)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// TestNames lists the test names a text mentions, in order, once each.
func TestNames(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range testNameRE.FindAllString(text, -1) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Feedback is what the rotations of stage get from the checkpoint (for
// prompt.Input.Feedback), following section 6: the test writer (tester)
// and the reviewer and qa stages get behavioural feedback only; the
// implementer (coder) gets the behavioural feedback and, of anything
// about tests, the test names only. Code never passes. Nothing is given
// once the checkpoint passed.
func Feedback(stage string, r Record) []string {
	if r.Status == StatusApproved || r.Status == StatusSkipped || r.Status == StatusNone {
		return nil
	}
	var out []string
	for _, e := range r.RejectionLog {
		fb := Behavioural(e.Feedback)
		if fb == "" {
			fb = "(no detail given)"
		}
		line := fmt.Sprintf("Human checkpoint rejection %d (%s), behavioural context only, never to be run: %q", e.Attempt, e.Classification, fb)
		if stage == stageCoder {
			if names := TestNames(e.Feedback); len(names) > 0 {
				line += "; tests named: " + strings.Join(names, ", ")
			}
		}
		out = append(out, line)
	}
	if r.Guidance != "" {
		out = append(out, fmt.Sprintf("Step-by-step guidance from the human (escalation: pair), behavioural context only: %q", Behavioural(r.Guidance)))
	}
	if r.Route == RouteRescope {
		out = append(out, "The human chose to re-scope this spec after 3 rejections: the work restarts from scratch.")
	}
	if len(out) > 0 && stage == stageTester {
		out = append(out, "As the test writer, test the behaviour the human expects; the implementation is not given to you.")
	}
	return out
}
