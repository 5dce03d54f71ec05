package agent

// ReportsCost tells whether what an agent whose output is read in format
// spends is known in dollars, so that budgets.cost_usd can add it up:
// Claude Code reports its cost, and the tokens Codex and Gemini CLI
// report are priced (budgets.prices over ralph-ci's table); a text agent
// reports nothing.
func ReportsCost(format string) bool {
	return format == "claude" || format == "codex" || format == "gemini"
}
