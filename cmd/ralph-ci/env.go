package main

import (
	"os"
	"strconv"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// environment is everything ralph-ci reads from the process environment,
// read once at the door (execute) and passed down: the commands and the
// packages below them never call os.Getenv.
type environment struct {
	// actions is the GitHub Actions runner's side: the job summary, the
	// step outputs, whether workflow commands are read.
	actions actions.Env
	// pr is what the pull-request channel needs: the API, the token and
	// the event that may carry a pull request.
	pr prchannel.Env
	// runnerDebug is RUNNER_DEBUG=1 (a re-run with debug logging).
	runnerDebug bool
	// refName is GITHUB_REF_NAME, the branch the workflow ran on: off a
	// pull request, delivery names its own branch after it.
	refName string
	// action is RALPH_ACTION=1: the Action exec'd ralph-ci, which then
	// writes the step's exit-code output itself.
	action bool
	// serverURL is GITHUB_SERVER_URL (https://github.com, or a GHES
	// host): where delivery's git authenticates with the token.
	serverURL string
	// landlock is RALPH_LANDLOCK=1: deny agents writing ralph-ci's own
	// git directory (see denyGitDirs).
	landlock bool
}

// exit writes the exit-code step output when the Action asked for it,
// and returns code.
func (e environment) exit(code exitcode.Code) exitcode.Code {
	if e.action && e.actions.Output != "" {
		if f, err := os.OpenFile(e.actions.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_ = actions.WriteOutputs(f, []actions.Output{{Name: "exit-code", Value: strconv.Itoa(int(code))}}, nil)
			f.Close()
		}
	}
	return code
}

// readEnvironment reads the environment through getenv (os.Getenv).
func readEnvironment(getenv func(string) string) environment {
	return environment{actions: actions.EnvFrom(getenv), pr: prchannel.EnvFrom(getenv), runnerDebug: getenv("RUNNER_DEBUG") == "1", refName: getenv("GITHUB_REF_NAME"), action: getenv("RALPH_ACTION") == "1", serverURL: getenv("GITHUB_SERVER_URL"), landlock: getenv("RALPH_LANDLOCK") == "1"}
}
