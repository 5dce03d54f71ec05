package layering

import (
	"regexp"
	"testing"
)

// startsProcess matches a line that starts a program.
var startsProcess = regexp.MustCompile(`exec\.Command(Context)?\(|os\.StartProcess\(|syscall\.(ForkExec|Exec|StartProcess)\(|unix\.Exec\(`)

// processStarters may start programs, each for the reason given. Every
// program ralph-ci does not trust (an agent, a verification command, a
// judge, what they start) must start through pipeline/agent.Run: it tells
// internal/git (git.Untrusted), whose commands skip sweeping ralph-ci's
// git folder and checking the checkout between two commands only while
// no such program may be alive. A program started anywhere else would
// run unseen by that rule.
var processStarters = map[string]string{
	"pipeline/agent":            "the agents and verification commands, under git.Untrusted",
	"internal/shepherd":         "the command pipeline/agent.Run hands it, in its box",
	"internal/git":              "git itself, through the doorway",
	"internal/seal":             "ralph-ci itself, sealed",
	"internal/box":              "ralph-ci itself as the box's first process, or through sudo",
	"internal/sudoroot":         "ralph-ci itself through sudo, and sudo's check",
	"internal/agentuser":        "useradd, making the agent's user",
	"internal/corpus":           "benchmark helper: runs ralph-ci on a corpus (bench/corpus)",
	"internal/ghorigin":         "test helper: the simulated origin",
	"internal/actionstep":       "test helper: runs an action's steps as a runner would",
	"cmd/ralph-ci/internal/e2e": "test helper: what the end-to-end tests share",
	"bench/corpus":              "benchmark: runs ralph-ci",
}

// TestUntrustedOnlyThroughAgentRun: no package outside processStarters
// starts a program.
func TestUntrustedOnlyThroughAgentRun(t *testing.T) {
	root, _ := moduleRoot(t)
	found, err := linesOutside(root, processStarters, startsProcess)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s starts a program outside the packages allowed to: start an agent or a verification command through pipeline/agent.Run (so that git.Untrusted knows it may be alive), or add the package to processStarters with the reason it is trusted", f)
	}
}
