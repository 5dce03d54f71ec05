//go:build !unix

package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// syncDir is a no-op: directories cannot be fsynced portably here (Windows
// rejects it); the rename itself is still atomic.
func syncDir(string) error { return nil }

// processAlive reports whether pid is a running process. On Windows
// os.FindProcess opens the process and fails if it does not exist (access
// denied means it exists). Elsewhere FindProcess cannot tell, and the
// process is assumed alive: the user is told to delete run.json.
func processAlive(pid int, _ uint64) (alive bool, why string) {
	if pid <= 0 {
		return false, fmt.Sprintf("pid %d is invalid", pid)
	}
	p, err := os.FindProcess(pid)
	if err != nil && !errors.Is(err, fs.ErrPermission) {
		return false, fmt.Sprintf("process %d is no longer running", pid)
	}
	if p != nil {
		_ = p.Release()
	}
	return true, ""
}

// processStartTime is unknown here; PID reuse is not detected.
func processStartTime(int) uint64 { return 0 }
