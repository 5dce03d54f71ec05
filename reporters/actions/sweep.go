package actions

import (
	"fmt"
	"io"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

// SweepSummary renders what check on a schedule found as the Markdown of
// a job summary: the exit class and message, one row per checkpoint read
// (pull request, spec, where it stands), the pull requests that could not
// be read and why, those whose checkpoints are all approved, and those
// left for the next run.
func SweepSummary(s gate.Swept) string {
	code, msg := s.Code()
	var b strings.Builder
	fmt.Fprintf(&b, "## ralph-ci check: the checkpoints of the open pull requests\n\n**%s** (exit %d): %s\n\n", code.Class(), code, mdText(msg))
	if len(s.Judged) > 0 {
		b.WriteString("| pull request | spec | checkpoint |\n|---|---|---|\n")
		for _, j := range s.Judged {
			if j.Err != nil {
				fmt.Fprintf(&b, "| #%d | | ❌ could not be read: %s |\n", j.PR, mdText(j.Err.Error()))
				continue
			}
			for _, group := range []struct {
				icon, name string
				specs      []string
			}{{"✅", "passed", j.Result.Passed}, {"👀", "pending", j.Result.Pending}, {"↩️", "rejected, back to work", j.Result.Rework}, {"🛑", "escalated", j.Result.Escalated}} {
				for _, sp := range group.specs {
					fmt.Fprintf(&b, "| #%d | %s | %s %s |\n", j.PR, mdText(sp), group.icon, group.name)
				}
			}
		}
		b.WriteString("\n")
	}
	if len(s.Approved) > 0 {
		fmt.Fprintf(&b, "Every checkpoint approved for the head (statuses, nothing to read): %s\n\n", prList(s.Approved))
	}
	if len(s.Left) > 0 {
		why := "the limit of pull requests per run (`github.max_pull_requests`)"
		if s.Limited != nil {
			why = "the GitHub API's rate limit: " + mdText(s.Limited.Error())
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
