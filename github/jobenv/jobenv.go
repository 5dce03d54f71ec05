// Package jobenv is what ralph-ci reads from the process environment of
// a job, GitHub Actions' above all: read once at the door (From, in
// cmd/ralph-ci) into an Env that the job session carries, so that the
// commands and the packages below them never call os.Getenv. It also
// ends the job's step the Action's way (Env.Exit: the exit-code output,
// and a wait for a person that ends the step green).
package jobenv

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// Env is everything ralph-ci reads from the process environment, read
// once at the door and passed down: the commands and the packages below
// them never call os.Getenv.
type Env struct {
	// Actions is the GitHub Actions runner's side: the job summary, the
	// step outputs, whether workflow commands are read.
	Actions actions.Env
	// PR is what the job's GitHub client and the pull-request channel
	// need: the API, the token and the event that may carry a pull
	// request.
	PR PR
	// RunnerDebug is RUNNER_DEBUG=1 (a re-run with debug logging).
	RunnerDebug bool
	// RefName is GITHUB_REF_NAME, the branch the workflow ran on: off a
	// pull request, delivery names its own branch after it.
	RefName string
	// Action is RALPH_ACTION=1: the Action exec'd ralph-ci, which then
	// writes the step's exit-code output itself.
	Action bool
	// ServerURL is GITHUB_SERVER_URL (https://github.com, or a GHES
	// host): where delivery's git authenticates with the token.
	ServerURL string
	// RunID is GITHUB_RUN_ID: the workflow run the statuses point at.
	RunID string
	// HasEnv tells whether the job's environment sets a variable (check
	// warns of an agent CLI without its key); nil means none is set.
	HasEnv func(name string) bool
	// FailOnWaiting is RALPH_FAIL_ON_WAITING=true (the Action's
	// fail-on-waiting input): a step that waits for a person fails, as
	// before; by default it ends green, its outputs and the ralph-ci
	// status saying where things stand.
	FailOnWaiting bool
	// PushToken is the Action's push-token input (on the descriptor
	// RALPH_PUSH_TOKEN_FD): the credential of ralph-ci's own git push
	// only, so that the push starts the repository's workflows.
	PushToken string
}

// From reads the environment through getenv (os.Getenv). The tokens
// are read at the door, from where the Action hands them.
func From(getenv func(string) string) Env {
	return Env{Actions: actions.EnvFrom(getenv), PR: PRFrom(getenv), RunnerDebug: getenv("RUNNER_DEBUG") == "1", RefName: getenv("GITHUB_REF_NAME"), Action: getenv("RALPH_ACTION") == "1", ServerURL: getenv("GITHUB_SERVER_URL"),
		RunID: getenv("GITHUB_RUN_ID"), FailOnWaiting: getenv("RALPH_FAIL_ON_WAITING") == "true",
		HasEnv: func(name string) bool { return getenv(name) != "" }}
}

// RunURL is the web page of the workflow run ("" outside Actions).
func (e Env) RunURL() string {
	if e.ServerURL == "" || e.PR.Repository == "" || e.RunID == "" {
		return ""
	}
	return strings.TrimSuffix(e.ServerURL, "/") + "/" + e.PR.Repository + "/actions/runs/" + e.RunID
}

// Exit writes the exit-code step output when the Action asked for it,
// and returns the code the process ends with: code, except that in the
// Action waiting for a person (exit 6, from run, check or a scheduled
// check) ends the step green unless fail-on-waiting is set; the output
// still says 6. stdout gets a notice saying so.
func (e Env) Exit(code exitcode.Code, stdout io.Writer) exitcode.Code {
	if e.Action && e.Actions.Output != "" {
		if f, err := os.OpenFile(e.Actions.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_ = actions.WriteOutputs(f, []actions.Output{{Name: "exit-code", Value: strconv.Itoa(int(code))}}, nil)
			f.Close()
		}
	}
	if e.Action && code == exitcode.AwaitHuman && !e.FailOnWaiting {
		_ = actions.WriteAnnotation(stdout, actions.Annotation{Level: actions.LevelNotice, Title: "ralph-ci",
			Message: "waiting for a person (exit 6, the exit-code output): the step ends green; the ralph-ci commit status and the outputs say where things stand (fail-on-waiting: true fails the step instead)"})
		return exitcode.OK
	}
	return code
}
