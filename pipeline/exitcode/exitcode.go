// Package exitcode defines ralph-ci's exit codes as values. Each class is
// documented in the README; scripts and CI conditions depend on them, so
// they never change meaning.
package exitcode

import (
	"errors"
	"fmt"
)

// Code is a process exit code.
type Code int

// The exit-code classes.
const (
	OK          Code = 0   // all specs verified (run); everything valid/approved (check)
	Failure     Code = 1   // an unexpected failure: I/O, git, an agent that cannot start
	Usage       Code = 2   // bad config, spec front matter or command line
	Limits      Code = 3   // a limit stopped the run: max rotations, iterations, wall time, a spend cap
	Stuck       Code = 4   // a spec kept returning STUCK, or was rejected for one reason too often
	Exhausted   Code = 5   // every agent of a pool is rate limited or out of quota
	AwaitHuman  Code = 6   // a verify-tier checkpoint waits for a human answer
	Rejected    Code = 7   // a human rejected a checkpoint; the spec goes back to work
	Escalated   Code = 8   // a checkpoint was rejected 3 times and waits for a decision
	Interrupted Code = 130 // SIGINT (Ctrl-C); SIGTERM gives 143 (128+signal)
)

// Class names a code for reports and step outputs.
func (c Code) Class() string {
	switch c {
	case OK:
		return "done"
	case Failure:
		return "failure"
	case Usage:
		return "usage"
	case Limits:
		return "limits"
	case Stuck:
		return "stuck"
	case Exhausted:
		return "agents_exhausted"
	case AwaitHuman:
		return "awaiting_human"
	case Rejected:
		return "rejected"
	case Escalated:
		return "escalated"
	}
	if c > 128 {
		return "interrupted"
	}
	return fmt.Sprintf("exit_%d", int(c))
}

// Error is an error that carries the exit code it should end the process
// with.
type Error struct {
	Code Code
	Err  error
	// Printed is true when the message was already shown to the user, so
	// main must not print it again.
	Printed bool
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Code.Class()
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// New wraps err with a code.
func New(code Code, err error) *Error { return &Error{Code: code, Err: err} }

// Printed wraps err with a code and marks it as already shown.
func Printed(code Code, err error) *Error { return &Error{Code: code, Err: err, Printed: true} }

// Of returns the code an error should exit with: its own code when it
// carries one, Failure otherwise, OK for nil.
func Of(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failure
}

// UsageError is a wrong command line: exit 2, and main names the
// command's help after the message (a bad config is New(Usage, err)).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}
