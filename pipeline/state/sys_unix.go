//go:build unix

package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// syncDir fsyncs a directory so that renames and removals in it are
// durable. File systems that cannot fsync directories are tolerated.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// processAlive reports whether pid is a running process, using kill(pid, 0):
// ESRCH means gone; success or EPERM (another user's process) mean it
// exists. On Linux a zombie counts as dead, and if procStart is known and
// differs from the process's current start time, the pid was reused by
// another process: dead as well. If alive is false, why says why.
func processAlive(pid int, procStart uint64) (alive bool, why string) {
	if pid <= 0 {
		return false, fmt.Sprintf("pid %d is invalid", pid)
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false, fmt.Sprintf("process %d is no longer running", pid)
	}
	state, start, ok := procStat(pid)
	if !ok {
		return true, "" // no /proc (not Linux) or a race: trust kill
	}
	if state == 'Z' || state == 'X' {
		return false, fmt.Sprintf("process %d has exited", pid)
	}
	if procStart != 0 && start != procStart {
		return false, fmt.Sprintf("process %d is no longer running (its pid now belongs to another process)", pid)
	}
	return true, ""
}

// processStartTime returns the start time of pid in clock ticks since boot
// (Linux /proc/<pid>/stat field 22), or 0 if unavailable.
func processStartTime(pid int) uint64 {
	_, start, _ := procStat(pid)
	return start
}

// procStat reads the state (field 3) and start time (field 22) of pid from
// /proc/<pid>/stat. The command name (field 2) may contain spaces and
// parentheses, so fields are counted after its last ')'.
func procStat(pid int) (state byte, start uint64, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 20 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], start, true
}
