package agent

import "io"

// ReportsCost tells whether what an agent whose output is read in format
// spends is known in dollars, so that budgets.cost_usd can add it up. The
// format says so ([costReporter]): Claude Code reports its cost, and the
// tokens Codex and Gemini CLI report are priced (budgets.prices over
// ralph-ci's table); a text agent reports nothing.
func ReportsCost(format string) bool {
	f, err := NewFormat(format, io.Discard, io.Discard)
	_, ok := f.(costReporter)
	return err == nil && ok
}

// costReporter is the optional ability of a format whose CLI reports its
// cost, or tokens that are priced.
type costReporter interface{ reportsCost() }
