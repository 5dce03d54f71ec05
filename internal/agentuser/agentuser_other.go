//go:build !linux

package agentuser

import (
	"context"
	"errors"
)

// Works: only Linux runs the agent as a user of its own.
const Works = false

// Run is what one run gives the agent's user (nothing here).
type Run struct {
	User
	Home, Tree   string
	Owner, Group int
	Env          []string
}

// Ensure fails here.
func Ensure(name string, create bool) (User, error) {
	return User{}, errors.New("a user of the agent's own needs Linux")
}

// Held is a user held by the run (none here).
type Held struct {
	User
	Shared  bool
	Cleaned Cleaned
}

// Cleaned is what was taken back from a user (nothing here).
type Cleaned struct {
	Killed, Alive      []Proc
	Revoked, GivenBack []string
}

// Empty is true here.
func (c Cleaned) Empty() bool { return true }

// Proc is a process that was killed.
type Proc struct {
	PID  int
	Comm string
}

// Take fails here.
func Take(context.Context, string, bool, func([]string)) (*Held, error) {
	return nil, errors.New("a user of the agent's own needs Linux")
}

// Release does nothing here.
func (h *Held) Release() (Cleaned, error) { return Cleaned{}, nil }

// Open fails here.
func Open(*Held, string, []string) (*Run, error) {
	return nil, errors.New("a user of the agent's own needs Linux")
}

// Granted is nothing here.
func (r *Run) Granted() []string { return nil }

// Lend does nothing here.
func (r *Run) Lend() (int, error) { return 0, nil }

// Close does nothing here.
func (r *Run) Close() error { return nil }

// Snapshot does nothing here.
func (r *Run) Snapshot(string) {}

// Sweep does nothing here.
func (r *Run) Sweep(string, ...string) ([]string, error) { return nil, nil }
