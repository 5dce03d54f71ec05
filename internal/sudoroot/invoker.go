package sudoroot

import (
	"errors"
	"fmt"
	"os"
)

// ForInvoker gives what writing the files paths creates to the user who
// ran ralph-ci as root through sudo (Invoker: the run as root that
// Relaunch starts, or a user's own sudo -E): call it before writing them,
// and the function it returns after, which says what it could not give
// back. Reports may lie outside the work tree (whose every entry goes
// back to its owner at the end), and the user must be able to replace or
// remove them. As anyone else, it does nothing.
func ForInvoker(paths ...string) func() error {
	uid, gid, ok := Invoker(os.Geteuid(), os.Getenv)
	if !ok {
		return func() error { return nil }
	}
	var made []string
	for _, p := range paths {
		if p != "" {
			made = append(made, Missing(p))
		}
	}
	return func() error {
		var errs []error
		for _, top := range made {
			if err := GiveBack(top, uid, gid); err != nil {
				errs = append(errs, fmt.Errorf("giving %s back to uid %d: %w", top, uid, err))
			}
		}
		return errors.Join(errs...)
	}
}
