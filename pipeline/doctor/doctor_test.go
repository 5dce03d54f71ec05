package doctor

import (
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	found := func(p string) bool { return p == "sh" || p == "claude" }
	cost := func(f string) bool { return f != "text" }
	keys := func(f string) []string {
		if f == "claude" {
			return []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}
		}
		return nil
	}
	set := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	for _, tc := range []struct {
		name  string
		facts Facts
		want  []string // substrings, one per warning, in order
	}{
		{"all well", Facts{Agents: map[string]Agent{"coder": {Command: []string{"claude", "-p"}, Format: "claude"}}, Found: found, CostBudget: 5, ReportsCost: cost, PullRequest: true, Token: true, Delivery: "pr", Root: "/r", TopLevel: "/r"}, nil},
		{"missing CLI", Facts{Agents: map[string]Agent{"b": {Command: []string{"codex"}}, "a": {Command: []string{"gemini"}}}, Found: found}, []string{"agent a: gemini is not on PATH: install Gemini CLI", "agent b: codex is not on PATH: install Codex"}},
		{"cost nobody reports", Facts{Agents: map[string]Agent{"coder": {Command: []string{"sh"}, Format: "text"}, "x": {Command: []string{"sh"}, Format: "text"}}, Found: found, CostBudget: 2, ReportsCost: cost}, []string{"budgets.cost_usd is 2, but no agent reports its cost (formats: text)"}},
		{"one agent priced", Facts{Agents: map[string]Agent{"coder": {Command: []string{"sh"}, Format: "text"}, "x": {Command: []string{"sh"}, Format: "codex"}}, Found: found, CostBudget: 2, ReportsCost: cost}, nil},
		{"cost without a budget", Facts{Agents: map[string]Agent{"coder": {Command: []string{"sh"}, Format: "text"}}, Found: found, ReportsCost: cost}, nil},
		{"pull request, no token", Facts{PullRequest: true}, []string{"a pull request's event, and no GitHub token"}},
		{"below the top with delivery", Facts{Delivery: "commit", Root: "/r/sub", TopLevel: "/r"}, []string{"delivery commit from /r/sub, below the top of its git repository /r"}},
		{"below the top without delivery", Facts{Root: "/r/sub", TopLevel: "/r"}, nil},
		{"outside git", Facts{Delivery: "commit", Root: "/r/sub"}, nil},
		{"no key for the CLI", Facts{Agents: map[string]Agent{"coder": {Command: []string{"claude"}, Format: "claude"}, "t": {Command: []string{"sh"}, Format: "text"}}, Found: found, KeyVars: keys, HasEnv: set()},
			[]string{"agent coder (format claude): no API key in the environment (none of ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN is set): its CLI fails at the first rotation"}},
		{"one of its keys set", Facts{Agents: map[string]Agent{"coder": {Command: []string{"claude"}, Format: "claude"}}, Found: found, KeyVars: keys, HasEnv: set("CLAUDE_CODE_OAUTH_TOKEN")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(tc.facts)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d warnings %q, want %d", len(got), got, len(tc.want))
			}
			for i, w := range got {
				if !strings.Contains(w.String(), tc.want[i]) || w.Fix == "" {
					t.Errorf("warning %d = %q, want it to hold %q and a fix", i, w, tc.want[i])
				}
			}
		})
	}
}
