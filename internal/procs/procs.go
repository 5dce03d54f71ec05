// Package procs answers questions about processes from /proc (Linux):
// whether one still runs, waiting for some to be gone, and which descend
// from one. The shepherd (internal/shepherd) and tests of containment use
// it; it imports nothing that is initialized late (see internal/shepherd).
package procs

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// Running reports whether pid exists and is not a zombie.
func Running(pid int) bool {
	after, ok := stat(pid)
	return ok && (len(after) < 2 || after[1] != 'Z')
}

// stat reads /proc/pid/stat and returns what follows the command name
// (field 2, which may hold spaces and parentheses, so it ends at the last
// ')'): " STATE PPID ...". after is nil when there is no ')'; ok is false
// when the file cannot be read (no such process).
func stat(pid int) (after []byte, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	if i := bytes.LastIndexByte(data, ')'); i >= 0 {
		return data[i+1:], true
	}
	return nil, true
}

// Survivors waits up to d for pids to be gone and returns those still
// running.
func Survivors(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	var left []int
	for _, pid := range pids {
		for Running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if Running(pid) {
			left = append(left, pid)
		}
	}
	return left
}
