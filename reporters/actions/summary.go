package actions

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
)

// maxSummary keeps a job summary under GitHub's limit of 1 MiB per step.
const maxSummary = 1000 << 10

// outcomeIcons mark outcomes in the summary table.
var outcomeIcons = map[string]string{
	report.SpecVerified: "✅",
	report.SpecAwaiting: "👀",
	report.SpecPending:  "⏳",
	report.SpecFailed:   "❌",
	report.SpecStuck:    "🛑",
}

// Summary renders r as the Markdown of a job summary: a heading with the
// verified count, the exit class and message, a table of specs (counter,
// outcome, rotations, cost, tier and checkpoint state) and, per spec, a
// collapsible <details> with its rotation log. When that would pass
// GitHub's 1 MiB limit the details are left out, then table rows.
func Summary(r *report.Report) string {
	s := summary(r, len(r.Specs), true)
	for rows := len(r.Specs); len(s) > maxSummary && rows > 0; rows /= 2 {
		s = summary(r, rows, false)
	}
	return s
}

// summary renders the first rows specs, with or without their details.
func summary(r *report.Report, rows int, details bool) string {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "### ralph-ci %s: %d of %d specs verified", mdText(r.Command), t.AllVerified(), t.Specs)
	if t.Awaiting > 0 {
		fmt.Fprintf(&b, ", %d awaiting a human", t.Awaiting)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "**Exit:** %s (code %d)", mdText(r.Exit.Class), r.Exit.Code)
	if m := text.OneLine(r.Exit.Message, 1000); m != "" {
		fmt.Fprintf(&b, " — %s", mdText(m))
	}
	fmt.Fprintf(&b, "  \n%d rotations · $%.4f", t.Rotations, finite(t.CostUSD))
	if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		fmt.Fprintf(&b, " · %s", r.FinishedAt.Sub(r.StartedAt).Round(time.Second))
	}
	writeSpend(&b, r.Spend)
	b.WriteString("\n\n")
	if len(r.Specs) == 0 {
		b.WriteString("No spec.\n")
		return b.String()
	}
	sharded := slices.ContainsFunc(r.Specs, func(s report.Spec) bool { return len(s.Shards) > 0 })
	b.WriteString("| Spec | Counter | Outcome | Rotations | Cost | Tier |")
	if sharded {
		b.WriteString(" Shard |")
	}
	b.WriteString("\n| --- | ---: | --- | ---: | ---: | --- |")
	if sharded {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, s := range r.Specs[:rows] {
		icon := outcomeIcons[s.Outcome]
		if icon == "" {
			icon = "❔"
		}
		fmt.Fprintf(&b, "| %s | %s | %s %s | %d (%d in all) | $%.4f | %s |",
			mdText(s.Path), reporters.Counter(s.Counter), icon, mdText(s.Outcome),
			len(s.Rotations), s.TotalRotations, finite(s.CostUSD), mdText(tierState(s)))
		if sharded {
			fmt.Fprintf(&b, " %s |", mdText(strings.Join(s.Shards, ", ")))
		}
		b.WriteString("\n")
	}
	writeStuck(&b, r.Specs[:rows])
	if rows < len(r.Specs) {
		fmt.Fprintf(&b, "\n%d more specs not shown (the summary is limited to 1 MiB); see the JSON report.\n", len(r.Specs)-rows)
	}
	if !details {
		return b.String()
	}
	b.WriteString("\n")
	for _, s := range r.Specs {
		writeDetails(&b, s)
	}
	return b.String()
}

// tierState is the tier of a spec and, for the verify tier, where its
// checkpoint stands.
func tierState(s report.Spec) string {
	switch {
	case s.Tier != "verify":
		return s.Tier
	case s.Outcome == report.SpecAwaiting:
		return "verify: checkpoint awaiting a human"
	case s.Outcome == report.SpecVerified:
		return "verify: approved"
	}
	return "verify"
}

// writeStuck writes, under the table and outside the collapsed details,
// why each stuck spec was taken out of the loop and how to bring it back:
// the first thing to read after a red run.
func writeStuck(b *strings.Builder, specs []report.Spec) {
	for _, s := range specs {
		if s.Outcome != report.SpecStuck {
			continue
		}
		fmt.Fprintf(b, "\n🧱 **%s is stuck:** %s  \nTo bring it back: edit the spec (a change of mind), or run `ralph-ci reset %s`.\n",
			mdText(s.Path), mdText(text.OneLine(s.Reason, 2000)), mdText(s.Path))
	}
}

// writeDetails writes the collapsible rotation log of one spec.
func writeDetails(b *strings.Builder, s report.Spec) {
	head := text.OneLine(s.Path, 0)
	if s.Title != "" {
		head += " — " + text.OneLine(s.Title, 200)
	}
	fmt.Fprintf(b, "<details><summary>%s: %s, %s</summary>\n\n",
		html.EscapeString(head), html.EscapeString(text.OneLine(s.Outcome, 40)), plural(len(s.Rotations), "rotation"))
	if s.Reason != "" {
		fmt.Fprintf(b, "Reason: %s\n\n", mdText(text.OneLine(s.Reason, 2000)))
	}
	lines := reporters.RotationLog(s.Rotations, 0)
	if len(lines) == 0 {
		b.WriteString("No rotation in this run.\n\n</details>\n\n")
		return
	}
	log := strings.Join(lines, "\n")
	fence := text.CodeFence(log)
	fmt.Fprintf(b, "%stext\n%s\n%s\n\n</details>\n\n", fence, log, fence)
}

// mdText makes s one line of literal Markdown text in a table cell: HTML
// is escaped and Markdown punctuation backslash-escaped.
func mdText(s string) string {
	s = html.EscapeString(text.OneLine(s, 0))
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`,
		"[", `\[`, "]", `\]`, "~", `\~`, "#", `\#`).Replace(s)
}

// plural is "1 rotation", "2 rotations".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// finite is x, or 0 when x is negative, NaN or infinite.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}

// writeSpend writes the run's spend by scope and the caps that stopped
// something, each on a line of its own.
func writeSpend(b *strings.Builder, s *report.Spend) {
	if s == nil {
		return
	}
	amount := func(a report.Amount) string { return fmt.Sprintf("%s, %d tokens", mdText(a.Text), a.Tokens) }
	fmt.Fprintf(b, "  \n**Spend:** this run %s · all runs of the loop %s", amount(s.Run), amount(s.PullRequest))
	if s.Day != nil {
		fmt.Fprintf(b, " · the repository today %s", amount(*s.Day))
	}
	for _, c := range s.Stops {
		fmt.Fprintf(b, "  \n🛑 **%s reached** (%s %s): %s spent", mdText(c.Key), mdText(c.Measure), mdText(c.Limit), amount(c.Spent))
		if c.Spec != "" {
			fmt.Fprintf(b, "; rotation %d of %s stopped at %s", c.Iteration, mdText(c.Spec), amount(*c.Rotation))
		}
		if c.Saved != "" {
			fmt.Fprintf(b, "; %s", mdText(c.Saved))
		}
	}
}
