package layers

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
)

// MaxFindings caps the findings kept from a reviewer's output.
const MaxFindings = 4000

// ReviewInput is what the reviewer's prompt is made of.
type ReviewInput struct {
	Spec      plan.Spec
	Stage     plan.Stage
	Task      int
	Iteration int
	Max       int
	Changed   []string
	Source    string // the spec file: the upstream artifact
	Prior     string // findings of the previous iteration
}

// ReviewPrompt is the spec's "Review Delegation Prompt", with the spec
// file as the upstream artifact (design and requirements in one).
func ReviewPrompt(in ReviewInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are reviewing the execution artifact for spec: %s\nSpec path: %s\nReview iteration: %d of %d\n\n", in.Spec.Title, in.Spec.Path, in.Iteration, in.Max)
	fmt.Fprintf(&b, "Task description:\nTask %d, stage %s: %s\nPromise: %s\n", in.Task, in.Stage.Name, in.Stage.Criteria.Description, in.Stage.Criteria.Promise)
	if c := in.Spec.Front; c != nil && c.Completion != nil {
		fmt.Fprintf(&b, "Outcome: %s\n", c.Completion.Outcome)
	}
	for _, c := range in.Spec.AllAcceptanceCriteria() {
		fmt.Fprintf(&b, "- [ ] %s\n", c)
	}
	b.WriteString("\nChanged files:\n")
	if len(in.Changed) == 0 {
		b.WriteString("(none in this rotation)\n")
	}
	for _, f := range in.Changed {
		fmt.Fprintf(&b, "%s\n", f)
	}
	fmt.Fprintf(&b, "\nUpstream artifacts (for cross-referencing):\n%s\n", strings.TrimSpace(in.Source))
	if in.Iteration > 1 && in.Prior != "" {
		fmt.Fprintf(&b, "\nPrior findings (from iteration %d):\n%s\n", in.Iteration-1, in.Prior)
	}
	b.WriteString(`
Apply the execution rubric. Output structured findings with REVIEW_PASS or REVIEW_FAIL.
If REVIEW_FAIL, provide specific, actionable feedback for revision. Reference file names and line numbers.
If the findings are spec-level or need a person rather than a code fix, write a line "PATH: B".
End with one last line: REVIEW_PASS or REVIEW_FAIL.
`)
	return b.String()
}

// ReviewSignal reads REVIEW_PASS or REVIEW_FAIL from the last non-empty
// line of the reviewer's output; "" when it has neither.
func ReviewSignal(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.ToUpper(lines[len(lines)-1])
	switch {
	case strings.Contains(last, "REVIEW_FAIL"):
		return "REVIEW_FAIL"
	case strings.Contains(last, "REVIEW_PASS"):
		return "REVIEW_PASS"
	}
	return ""
}

var pathBLine = lazyregexp.New(`(?im)^\W*(PATH:\s*B\b|SPEC_ISSUE\b)`)

// PathB tells that the reviewer marked its findings spec-level (a line
// "PATH: B" or "SPEC_ISSUE"): Path B, suggestions instead of a fix.
func PathB(out string) bool { return pathBLine.MatchString(out) }

// ReviewFindings are the reviewer's findings: from "Feedback for
// Revision" when it has that section, else its whole output, without the
// signal line, capped.
func ReviewFindings(out string) string {
	if i := strings.Index(strings.ToLower(out), "feedback for revision"); i >= 0 {
		out = out[i:]
		if j := strings.IndexByte(out, '\n'); j >= 0 {
			out = out[j+1:]
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if ReviewSignal(lines[len(lines)-1]) != "" {
		lines = lines[:len(lines)-1]
	}
	s := strings.TrimSpace(strings.Join(lines, "\n"))
	if len(s) > MaxFindings {
		n := MaxFindings
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// Summary is the findings in one line: their first three non-empty lines.
func Summary(findings string) string {
	var parts []string
	for _, l := range strings.Split(findings, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*#>"))
		if l != "" && !pathBLine.MatchString(l) {
			parts = append(parts, l)
		}
		if len(parts) == 3 {
			break
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	s := strings.Join(parts, "; ")
	if len(s) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}
