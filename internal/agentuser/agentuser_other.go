//go:build !linux

package agentuser

import "errors"

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

// Open fails here.
func Open(User, string, []string) (*Run, error) {
	return nil, errors.New("a user of the agent's own needs Linux")
}

// Granted is nothing here.
func (r *Run) Granted() []string { return nil }

// Lend does nothing here.
func (r *Run) Lend() (int, error) { return 0, nil }

// Close does nothing here.
func (r *Run) Close() error { return nil }
