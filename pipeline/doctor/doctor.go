// Package doctor holds the rules of `ralph-ci check` as a doctor: what is
// valid but will not work as the user expects (an agent CLI that is not
// installed, a cost budget no agent can report, a pull request's event
// without a token, delivery from below the top of a repository). Each
// finding is a warning, never an error, and says what to do. The rules
// are pure: cmd gathers the facts.
package doctor

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Facts are what the rules look at.
type Facts struct {
	// Agents are the agents the enabled stages (and the layers) use, by
	// name, with their resolved argv and output format.
	Agents map[string]Agent
	// Found tells whether a program is on PATH, or is a file when its
	// name holds a slash (relative to the repository root).
	Found func(program string) bool
	// CostBudget is budgets.cost_usd (0: none); ReportsCost tells whether
	// an agent of an output format reports its cost.
	CostBudget  float64
	ReportsCost func(format string) bool
	// KeyVars are the variables the CLI of a format reads its key from
	// (none: the format does not say); HasEnv whether the job's
	// environment sets one.
	KeyVars func(format string) []string
	HasEnv  func(name string) bool
	// PullRequest is true when the event is a pull request's (or a
	// comment on one); Token whether a GitHub token was given.
	PullRequest, Token bool
	// Delivery is the delivery mode's name, "" for one that leaves the
	// work in the work tree; Root the repository root given (-C) and
	// TopLevel the top of its git work tree ("" outside git).
	Delivery, Root, TopLevel string
}

// Agent is one agent's command as it will be started.
type Agent struct {
	Command []string
	Format  string
}

// Warning is one finding: what is wrong, and what to do.
type Warning struct {
	Msg, Fix string
}

// String is the warning as check prints it.
func (w Warning) String() string { return w.Msg + ": " + w.Fix }

// Check applies every rule to f, in a stable order.
func Check(f Facts) []Warning {
	var out []Warning
	names := make([]string, 0, len(f.Agents))
	for n := range f.Agents {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		a := f.Agents[n]
		if len(a.Command) > 0 && f.Found != nil && !f.Found(a.Command[0]) {
			out = append(out, Warning{
				Msg: fmt.Sprintf("agent %s: %s is not on PATH", n, a.Command[0]),
				Fix: install(a.Command[0]) + ", or set agents." + n + ".command",
			})
		}
	}
	for _, n := range names {
		if w, ok := f.noKey(n); ok {
			out = append(out, w)
		}
	}
	if f.CostBudget > 0 && f.ReportsCost != nil {
		reports := false
		var formats []string
		for _, n := range names {
			reports = reports || f.ReportsCost(f.Agents[n].Format)
			formats = append(formats, f.Agents[n].Format)
		}
		if !reports {
			out = append(out, Warning{
				Msg: fmt.Sprintf("budgets.cost_usd is %g, but no agent reports its cost (formats: %s)", f.CostBudget, strings.Join(slices.Compact(slices.Sorted(slices.Values(formats))), ", ")),
				Fix: "the budget can never stop a run; limit it with budgets.max_rotations or budgets.wall_time instead (docs/budgets.md)",
			})
		}
	}
	if f.PullRequest && !f.Token {
		out = append(out, Warning{
			Msg: "a pull request's event, and no GitHub token",
			Fix: "the checkpoints cannot be read or posted; give the job's token: the Action does (its token input), the binary reads GITHUB_TOKEN, RALPH_TOKEN_FILE or RALPH_TOKEN_FD (docs/getting-started.md)",
		})
	}
	if f.Delivery != "" && f.TopLevel != "" && !samePath(f.Root, f.TopLevel) {
		out = append(out, Warning{
			Msg: fmt.Sprintf("delivery %s from %s, below the top of its git repository %s", f.Delivery, f.Root, f.TopLevel),
			Fix: "delivery commits the whole repository and run refuses it; run ralph-ci at the repository's root, or use --deliver none",
		})
	}
	return out
}

// noKey is the warning of an agent whose CLI reads its key from the
// environment, where none of its variables is set: the CLI then fails at
// the first rotation with its own "Not logged in", unless it is logged in
// on this machine.
func (f Facts) noKey(name string) (Warning, bool) {
	if f.KeyVars == nil {
		return Warning{}, false
	}
	a := f.Agents[name]
	vars := f.KeyVars(a.Format)
	if len(vars) == 0 || f.HasEnv != nil && slices.ContainsFunc(vars, f.HasEnv) {
		return Warning{}, false
	}
	return Warning{
		Msg: fmt.Sprintf("agent %s (format %s): no API key in the environment (none of %s is set)", name, a.Format, strings.Join(vars, ", ")),
		Fix: fmt.Sprintf("its CLI fails at the first rotation (\"Not logged in\") unless it is logged in on this machine; set %s (in a workflow, from a secret: env: {%s: ${{ secrets.%s }}}) (docs/troubleshooting.md#no-api-key)", vars[0], vars[0], vars[0]),
	}, true
}

// install says how to install a program an agent needs.
func install(program string) string {
	switch filepath.Base(program) {
	case "claude":
		return "install Claude Code (npm install -g @anthropic-ai/claude-code)"
	case "codex":
		return "install Codex (npm install -g @openai/codex)"
	case "gemini":
		return "install Gemini CLI (npm install -g @google/gemini-cli)"
	}
	return "install it"
}

// samePath compares two folders, both already resolved by the caller.
func samePath(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }
