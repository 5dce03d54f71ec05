package actions

import (
	"fmt"
	"io"
	"strings"
)

// Swept is what check on a schedule found, as the job summary shows it:
// plain values, so that the reporters need nothing of the gate.
type Swept struct {
	// Class, Code and Message are the sweep's exit and why.
	Class   string
	Code    int
	Message string
	// Rows are the checkpoints read, pull request by pull request.
	Rows []SweptRow
	// Approved are the pull requests whose checkpoints are all approved
	// (nothing read); Left those left for the next run.
	Approved, Left []int
	// Limited is the rate limit's error that left them ("": the limit of
	// pull requests per run).
	Limited string
}

// SweptRow is one checkpoint read (Spec, Checkpoint: passed, pending,
// rejected or escalated), or a pull request that could not be read (Err).
type SweptRow struct {
	PR                    int
	Spec, Checkpoint, Err string
}

// checkpointWords are how the summary shows where a checkpoint stands.
var checkpointWords = map[string]string{"passed": "✅ passed", "pending": "👀 pending", "rejected": "↩️ rejected, back to work", "escalated": "🛑 escalated"}

// SweepSummary renders what check on a schedule found as the Markdown of
// a job summary: the exit class and message, one row per checkpoint read
// (pull request, spec, where it stands), the pull requests that could not
// be read and why, those whose checkpoints are all approved, and those
// left for the next run.
func SweepSummary(s Swept) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## ralph-ci check: the checkpoints of the open pull requests\n\n**%s** (exit %d): %s\n\n", s.Class, s.Code, mdText(s.Message))
	if len(s.Rows) > 0 {
		b.WriteString("| pull request | spec | checkpoint |\n|---|---|---|\n")
		for _, r := range s.Rows {
			if r.Err != "" {
				fmt.Fprintf(&b, "| #%d | | ❌ could not be read: %s |\n", r.PR, mdText(r.Err))
				continue
			}
			fmt.Fprintf(&b, "| #%d | %s | %s |\n", r.PR, mdText(r.Spec), checkpointWords[r.Checkpoint])
		}
		b.WriteString("\n")
	}
	if len(s.Approved) > 0 {
		fmt.Fprintf(&b, "Every checkpoint approved for the head (statuses, nothing to read): %s\n\n", prList(s.Approved))
	}
	if len(s.Left) > 0 {
		why := "the limit of pull requests per run (`github.max_pull_requests`)"
		if s.Limited != "" {
			why = "the GitHub API's rate limit: " + mdText(s.Limited)
		}
		fmt.Fprintf(&b, "Left for the next run, because of %s: %s\n", why, prList(s.Left))
	}
	return b.String()
}

func prList(prs []int) string {
	out := make([]string, len(prs))
	for i, n := range prs {
		out[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(out, ", ")
}

// AppendSummary appends Markdown to the job summary
// (GITHUB_STEP_SUMMARY); without one it does nothing.
func (e Env) AppendSummary(md string) error {
	if e.StepSummary == "" {
		return nil
	}
	return appendFile(e.StepSummary, func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	})
}
