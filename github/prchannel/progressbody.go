package prchannel

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/spend"
)

// ProgressView is what the progress comment shows.
type ProgressView struct {
	Rows []ProgressRow
	// Rotations and CostUSD are this run's so far; MaxRotations and
	// BudgetUSD its budgets (0: none).
	Rotations, MaxRotations int
	CostUSD, BudgetUSD      float64
	// PRRotations and PRSpend are the pull request's so far: every run
	// of its loop's state (which travels with the pull request), this
	// one's included. PRCap is budgets.per_pull_request (zero: none).
	PRRotations int
	PRSpend     spend.Amount
	PRCap       spend.Cap
	// Waiting are the checkpoints waiting for a person.
	Waiting []string
	RunURL  string
	// Ended says how the run ended ("" while it runs).
	Ended string
}

// ProgressRow is one spec of the matrix.
type ProgressRow struct {
	Spec, Counter, Stage, LastStatus, Tier string
	Changed                                bool
}

// ProgressBody is the progress comment's text (without its marker).
func ProgressBody(v ProgressView) string {
	var b strings.Builder
	state := "running"
	if v.Ended != "" {
		state = "ended: " + v.Ended
	}
	fmt.Fprintf(&b, "### ralph-ci loop: %s\n\n", state)
	b.WriteString("| spec | counter | stage | last status | changed files | tier |\n|---|---|---|---|---|---|\n")
	for _, r := range v.Rows {
		changed := "no"
		if r.Changed {
			changed = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", cell(r.Spec), r.Counter, cell(r.Stage), cell(r.LastStatus), changed, r.Tier)
	}
	fmt.Fprintf(&b, "\nRotations: %d%s this run · %d for the pull request\n", v.Rotations, of(v.MaxRotations > 0, fmt.Sprintf(" of %d", v.MaxRotations)), v.PRRotations)
	fmt.Fprintf(&b, "Cost: $%.2f%s this run · %s%s for the pull request (%d tokens%s)\n",
		v.CostUSD, of(v.BudgetUSD > 0, fmt.Sprintf(" of $%.2f", v.BudgetUSD)),
		dollars(v.PRSpend), of(v.PRCap.USD > 0, fmt.Sprintf(" of $%.2f", v.PRCap.USD)),
		v.PRSpend.Tokens, of(v.PRCap.Tokens > 0, fmt.Sprintf(" of %d", v.PRCap.Tokens)))
	if len(v.Waiting) > 0 {
		fmt.Fprintf(&b, "\nCheckpoints waiting for a person: %s (answer on their own comments)\n", "`"+strings.Join(v.Waiting, "`, `")+"`")
	}
	if v.RunURL != "" {
		fmt.Fprintf(&b, "\n[The workflow run](%s)\n", v.RunURL)
	}
	return b.String()
}

// dollars is a spend's dollars to the cent; runs that could not be
// priced are said, never counted as $0.
func dollars(a spend.Amount) string {
	switch {
	case a.Unpriced > 0 && a.USD == 0:
		return "unknown"
	case a.Unpriced > 0:
		return fmt.Sprintf("$%.2f + unknown", a.USD)
	}
	return fmt.Sprintf("$%.2f", a.USD)
}

func of(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// cell keeps a table cell on its line.
func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "`", "'").Replace(s)
}
