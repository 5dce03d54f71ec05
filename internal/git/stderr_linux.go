package git

import (
	"os"

	"golang.org/x/sys/unix"
)

// stderrFile is an in-memory file for a git process's standard error
// (git writes to it directly: no goroutine copies it), nil when the
// kernel makes none. Git's errors are a few lines; what it prints
// beyond 64 kB is never read.
func stderrFile() *os.File {
	fd, err := unix.MemfdCreate("git-stderr", unix.MFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "git-stderr")
}
