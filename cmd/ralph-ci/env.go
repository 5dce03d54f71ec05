package main

import (
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/prchannel"
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
}

// readEnvironment reads the environment through getenv (os.Getenv).
func readEnvironment(getenv func(string) string) environment {
	return environment{actions: actions.EnvFrom(getenv), pr: prchannel.EnvFrom(getenv), runnerDebug: getenv("RUNNER_DEBUG") == "1", refName: getenv("GITHUB_REF_NAME")}
}
