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
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
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
