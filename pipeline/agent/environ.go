package agent

import (
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// The job's credentials and files never reach a process ralph-ci starts
// (an agent, a judge, a reviewer or a verification command): with the
// token an agent could answer its own checkpoint, and with the job's
// files it could set variables, outputs and the summary of later steps.
// No config can pass these.
var neverPassed = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL",
	"ACTIONS_ID_TOKEN_REQUEST_*", "ACTIONS_CACHE_URL",
	"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE",
	"INPUT_*", TokenFDVar, TokenFileVar, PushTokenFDVar, PushTokenFileVar,
}

// waitsOutLimits are settings that make an agent CLI wait out a rate limit
// instead of exiting: Claude Code's opt-in persistent retry
// (CLAUDE_CODE_RETRY_WATCHDOG and its _MAX_WAIT_MS, _SCOPE, … companions)
// keeps retrying for hours, so a limited agent would never end and the
// pool would never move on to its next agent. ralph-ci waits for resets
// itself (budgets.max_wait); these never reach a process, not even from
// an agent's configured env.
var waitsOutLimits = []string{"CLAUDE_CODE_RETRY_WATCHDOG*"}

// redirectsGit are the variables that point git at another repository
// than the work tree's (gitenv.Redirects: GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, ...). No process inherits them: ralph-ci runs on the
// work tree and judges it (its own git never reads them), so the agent's
// git works there too; started from a git hook or `git bisect run`,
// which set them, ralph-ci gave the agent's commits to the repository of
// the hook. A config that means it sets one in an agent's env.
var redirectsGit = gitenv.Redirects

// TokenFDVar and TokenFileVar name how the Action hands ralph-ci its
// token, and PushTokenFDVar and PushTokenFileVar its push-token: a file
// descriptor to read, or (on Windows) a 0600 file outside the workspace
// to read and delete (see cmd/ralph-ci). They are never passed on.
const (
	TokenFDVar       = "RALPH_TOKEN_FD"
	TokenFileVar     = "RALPH_TOKEN_FILE"
	PushTokenFDVar   = "RALPH_PUSH_TOKEN_FD"
	PushTokenFileVar = "RALPH_PUSH_TOKEN_FILE"
)

// EnvPolicy says what, beyond the fixed list, the started processes do
// not inherit: the config's environment.remove for every process, and an
// agent's own env_remove and env_pass. Names ending in * are prefixes.
type EnvPolicy struct {
	Remove []string // removed for every process (environment.remove)
	// Only, when not nil, is an allow-list: nothing else is inherited
	// (a fork's run, see ForkAllowList); AgentPass does not widen it.
	Only []string
	// AgentRemove and AgentPass are one agent's env_remove and env_pass;
	// a passed name re-admits one Remove removed, never a fixed one.
	AgentRemove []string
	AgentPass   []string
}

// BuildEnv is the environment of every process ralph-ci starts (agents,
// judges, reviewers and verification commands all start through Run and
// startProcess, with ralph-ci's own environment as base): base without
// the job's credentials and files, the variables that point git at
// another repository, and what p removes, then extra
// (KEY=VALUE, later entries win). It is pure, and the one place that
// decides what a started process inherits. The caller's extra entries
// (RALPH_* and the agent's configured env) are set as given, the config
// names them explicitly, except the settings that wait out a rate limit
// (waitsOutLimits), which are dropped from both.
func BuildEnv(base []string, p EnvPolicy, extra []string) []string {
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if Removed(name, p) {
			continue
		}
		env = append(env, kv)
	}
	for _, kv := range extra {
		if name, _, _ := strings.Cut(kv, "="); !matchAny(name, waitsOutLimits) {
			env = append(env, kv)
		}
	}
	return env
}

// Removed tells whether the variable name is kept from a started process
// under p.
func Removed(name string, p EnvPolicy) bool {
	switch {
	case matchAny(name, neverPassed), matchAny(name, waitsOutLimits), matchAny(name, redirectsGit):
		return true
	case matchAny(name, p.AgentRemove):
		return true
	case p.Only != nil && !matchAny(name, p.Only):
		return true
	case matchAny(name, p.Remove):
		return !matchAny(name, p.AgentPass)
	}
	return false
}

// matchAny tells whether name is one of names, where a name ending in *
// is a prefix.
func matchAny(name string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if n == name {
			return true
		}
	}
	return false
}

// forkBasics are what a process on a fork's run inherits: the system's
// basics, ralph-ci's RALPH_* and the runner's non-secret basics, and the
// Go and Node toolchains' locations. The agents' keys are not among them:
// no process inherits a key, the proxy holds it (see [Network]).
var forkBasics = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "LANG", "LANGUAGE", "LC_*",
	"TMPDIR", "TMP", "TEMP", "RALPH_*", "CI", "GITHUB_ACTIONS", "GITHUB_WORKSPACE",
	"RUNNER_OS", "RUNNER_ARCH", "RUNNER_TEMP", "RUNNER_TOOL_CACHE",
	"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "GOTOOLCHAIN", "GOCOVERDIR", "NODE_PATH",
}

// KeyVars are the environment variables the CLI of format reads its
// model API key from (any one of them will do); none for a format that
// does not say (text).
func KeyVars(format string) []string {
	if api, ok := FormatAPI(format); ok {
		return slices.Clone(api.Keys)
	}
	return nil
}

// ForkAllowList is the allow-list (EnvPolicy.Only) of a run on a fork's
// pull request, whose code and config are the fork's: the basics, nothing
// else of the job's environment (no NPM_TOKEN, no cloud credentials). The
// config's env_pass cannot add to it. The agents still reach their model
// APIs: the proxy reads the keys and base URLs from ralph-ci's own
// environment, whatever this list keeps.
func ForkAllowList() []string { return slices.Clone(forkBasics) }

// userScoped are the variables that name folders of ralph-ci's user, which
// the agent's user of its own may not write: dropped, so that the tools'
// defaults (below HOME) apply.
var userScoped = []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"}

// UserEnv is env for a process run as the agent's user name, with the
// HOME of its own home: HOME, USER and LOGNAME are its, the userScoped
// folders gone, unless the agent's configured env (extra) sets one; the
// defaults (KEY=VALUE: toolchains found in ralph-ci's HOME) are added
// where env sets none of them.
func UserEnv(env, extra []string, name, home string, defaults ...string) []string {
	set := map[string]string{"HOME": home, "USER": name, "LOGNAME": name}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if (set[k] != "" || slices.Contains(userScoped, k)) && !hasVar(extra, k) {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range []string{"HOME", "USER", "LOGNAME"} {
		if !hasVar(extra, k) {
			out = append(out, k+"="+set[k])
		}
	}
	for _, kv := range defaults {
		if k, _, _ := strings.Cut(kv, "="); !hasVar(out, k) {
			out = append(out, kv)
		}
	}
	return out
}

// hasVar tells whether env sets name.
func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}
