package agent

// ReportsCost tells whether an agent whose output is read in format
// reports what a rotation cost, so that budgets.cost_usd can add it up:
// Claude Code does (total_cost_usd); Codex and Gemini CLI report tokens
// only, and a text agent nothing.
func ReportsCost(format string) bool { return format == "claude" }
