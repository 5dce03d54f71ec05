package agent

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/ralph-ci/ralph-ci/schema"
)

// Start is one start of a configured agent: the coder of a rotation, the
// artifact reviewer, or a semantic judge. [Configured] is the one doorway
// through which ralph-ci starts them, so that the environment, the
// timeout and how failure is read are the same for all.
type Start struct {
	// Name is the agent's name in the config; errors name it.
	Name  string
	Agent schema.Agent
	// Dir is the working directory: the repository root.
	Dir string
	// Env are the caller's RALPH_* variables; the agent's configured env
	// follows them (see [Environ]).
	Env    []string
	Prompt string
	// Output receives the agent's output as it arrives; nil discards it.
	Output io.Writer
	// Watch lists phrases to look for in the final text.
	Watch []string
	// Meter is Invocation.Meter: it may stop the agent on what it spent.
	Meter func(Usage) (stop bool)
	// Host is how the agent is started (see [Host]).
	Host *Host
}

// Configured runs the configured agent s describes: its command, format
// and timeout from the config, the environment of [Environ]. The error is
// Run's: the agent could not start, or its output could not be read or
// written. How the run ended otherwise is told by [Result.Failure].
func Configured(ctx context.Context, s Start) (Result, error) {
	a := s.Agent
	env := slices.Clone(s.Env)
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		env = append(env, k+"="+a.Env[k])
	}
	var api *ModelAPI
	if m := a.ModelAPI; m != nil {
		api = &ModelAPI{Keys: m.Keys, BaseURL: m.BaseURL, Upstream: m.Upstream, Setting: m.Setting, Declared: true}
	}
	return Run(ctx, Invocation{
		API: api, Argv: a.Command, Dir: s.Dir, Env: env, Prompt: s.Prompt,
		Timeout: a.Timeout.Std(), Format: a.Format, Output: s.Output, Watch: s.Watch,
		Pass: a.EnvPass, Remove: a.EnvRemove, Host: s.Host, Meter: s.Meter,
	})
}

// Failure classes how an agent run ended.
type Failure int

// The failure classes, in the order [Result.Failure] tests them.
const (
	Succeeded     Failure = iota // exited 0 and reported no error
	NotStarted                   // the command could not be started
	Cancelled                    // the caller's context was done
	Stopped                      // its Meter stopped it (a spend cap)
	TimedOut                     // the agent's timeout passed
	ExitedNonZero                // it exited with a non-zero status or a signal
	ReportedError                // it exited 0, but its CLI reported an error
)

// Failure classes the run: err is the error Run or [Configured] returned.
func (r Result) Failure(err error) Failure {
	switch {
	case r.Cancelled:
		return Cancelled
	case err != nil && r.PID == 0:
		return NotStarted
	case r.Stopped:
		return Stopped
	case r.TimedOut:
		return TimedOut
	case r.ExitCode != 0:
		return ExitedNonZero
	case r.Usage.IsError:
		return ReportedError
	}
	return Succeeded
}

// FailureError says how a configured agent failed, naming it.
type FailureError struct {
	Name  string
	Class Failure
	// Timeout is the agent's timeout; ExitCode its exit status; Message
	// the error its CLI reported; Err the start error.
	Timeout  string
	ExitCode int
	Message  string
	Err      error
}

// Error implements error: "NAME timed out after 30s", "NAME exited with 2", ….
func (e *FailureError) Error() string {
	switch e.Class {
	case NotStarted:
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	case Cancelled:
		return e.Name + " cancelled"
	case TimedOut:
		return fmt.Sprintf("%s timed out after %s", e.Name, e.Timeout)
	case Stopped:
		return e.Name + " stopped by a spend cap"
	case ExitedNonZero:
		return fmt.Sprintf("%s exited with %d", e.Name, e.ExitCode)
	case ReportedError:
		return fmt.Sprintf("%s reported an error: %s", e.Name, e.Message)
	}
	return e.Name + " succeeded"
}

// Unwrap returns the start error, if any.
func (e *FailureError) Unwrap() error { return e.Err }

// Failed is the run's failure as an error, nil when it succeeded or ended
// in one of the classes ignore lists.
func (s Start) Failed(res Result, err error, ignore ...Failure) error {
	class := res.Failure(err)
	if class == Succeeded || slices.Contains(ignore, class) {
		return nil
	}
	return &FailureError{Name: s.Name, Class: class, Timeout: s.Agent.Timeout.Std().String(), ExitCode: res.ExitCode, Message: res.Usage.ErrorMessage, Err: err}
}
