package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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
	// runID is GITHUB_RUN_ID: the workflow run the statuses point at.
	runID string
	// failOnWaiting is RALPH_FAIL_ON_WAITING=true (the Action's
	// fail-on-waiting input): a step that waits for a person fails, as
	// before; by default it ends green, its outputs and the ralph-ci
	// status saying where things stand.
	failOnWaiting bool
	// pushToken is the Action's push-token input (on the descriptor
	// RALPH_PUSH_TOKEN_FD): the credential of ralph-ci's own git push
	// only, so that the push starts the repository's workflows.
	pushToken string
}

// runURL is the web page of the workflow run ("" outside Actions).
func (e environment) runURL() string {
	if e.serverURL == "" || e.pr.Repository == "" || e.runID == "" {
		return ""
	}
	return strings.TrimSuffix(e.serverURL, "/") + "/" + e.pr.Repository + "/actions/runs/" + e.runID
}

// exit writes the exit-code step output when the Action asked for it,
// and returns the code the process ends with: code, except that in the
// Action waiting for a person (exit 6, from run, check or a scheduled
// check) ends the step green unless fail-on-waiting is set; the output
// still says 6. stdout gets a notice saying so.
func (e environment) exit(code exitcode.Code, stdout io.Writer) exitcode.Code {
	if e.action && e.actions.Output != "" {
		if f, err := os.OpenFile(e.actions.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_ = actions.WriteOutputs(f, []actions.Output{{Name: "exit-code", Value: strconv.Itoa(int(code))}}, nil)
			f.Close()
		}
	}
	if e.action && code == exitcode.AwaitHuman && !e.failOnWaiting {
		fmt.Fprintln(stdout, "::notice title=ralph-ci::waiting for a person (exit 6, the exit-code output): the step ends green; the ralph-ci commit status and the outputs say where things stand (fail-on-waiting: true fails the step instead)")
		return exitcode.OK
	}
	return code
}

// readEnvironment reads the environment through getenv (os.Getenv).
func readEnvironment(getenv func(string) string) environment {
	return environment{actions: actions.EnvFrom(getenv), pr: prchannel.EnvFrom(getenv), runnerDebug: getenv("RUNNER_DEBUG") == "1", refName: getenv("GITHUB_REF_NAME"), action: getenv("RALPH_ACTION") == "1", serverURL: getenv("GITHUB_SERVER_URL"), landlock: getenv("RALPH_LANDLOCK") == "1",
		runID: getenv("GITHUB_RUN_ID"), failOnWaiting: getenv("RALPH_FAIL_ON_WAITING") == "true"}
}
