//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd || illumos

package state

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// withRecoveryMutex runs fn while holding an exclusive flock on the .ralph
// directory. flock locks belong to the open file description, so they also
// exclude goroutines of the same process, and the kernel drops them when the
// process dies. File systems without flock support use the sentinel file.
func withRecoveryMutex(dir Dir, fn func() error) error {
	f, err := os.Open(string(dir))
	if err != nil {
		return fmt.Errorf("acquire lock: open %s: %w", dir, err)
	}
	defer f.Close()
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP),
		errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
		return withSentinelMutex(dir, fn)
	case err != nil:
		return fmt.Errorf("acquire lock: lock %s: %w", dir, err)
	}
	defer syscall.Flock(fd, syscall.LOCK_UN) //nolint:errcheck // closing also unlocks
	return fn()
}
