//go:build unix

package git

import (
	"errors"
	"os"
	"syscall"
)

// canHold: a run's git directory is held by a lock the kernel drops when
// the run ends.
const canHold = true

// hold opens the git directory dir and takes the lock that marks it as a
// live run's (flock, exclusive): the kernel lets it go when the process
// ends, even by SIGKILL, so a later run knows the folder's run is gone
// when it can take the lock itself (sweepGone). The file is opened
// close-on-exec, so no process ralph-ci starts keeps the lock. It fails
// with errTaken when another process holds the lock or dir is no longer
// the folder that was opened (a sweep removed it meanwhile).
func hold(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errTaken
	}
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errTaken
		}
		return nil, err
	}
	opened, err := f.Stat()
	now, lerr := os.Lstat(dir)
	if err != nil || lerr != nil || !os.SameFile(opened, now) {
		_ = f.Close()
		return nil, errTaken
	}
	return f, nil
}
