package git

import (
	"os"

	"golang.org/x/sys/unix"
)

// stderrFile is an in-memory file for a git process's standard error
// (git writes to it directly: no goroutine copies it), nil when the
// kernel makes none. It is stderrLimit bytes long and sealed against
// growing: what git prints beyond that (a remote's messages during a
// push come from the network) fails to be written instead of filling
// memory.
func stderrFile() *os.File {
	fd, err := unix.MemfdCreate("git-stderr", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "git-stderr")
	if unix.Ftruncate(fd, stderrLimit) != nil {
		f.Close()
		return nil
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		f.Close()
		return nil
	}
	return f
}
