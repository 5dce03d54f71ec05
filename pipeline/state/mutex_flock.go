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
	unlock, ok, err := lockDir(string(dir), true)
	if err != nil {
		return fmt.Errorf("acquire lock: %w", err)
	}
	if !ok {
		return withSentinelMutex(dir, fn)
	}
	defer unlock()
	return fn()
}

// lockDir takes a shared or exclusive flock on the directory dir and
// returns the function that releases it. ok is false, with nothing held,
// where the file system has no flock or dir does not exist.
func lockDir(dir string, exclusive bool) (unlock func(), ok bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", dir, err)
	}
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP),
		errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
		_ = f.Close()
		return func() {}, false, nil
	case err != nil:
		_ = f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { _ = f.Close() }, true, nil // closing unlocks
}
