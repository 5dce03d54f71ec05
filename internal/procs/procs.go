// Package procs answers questions about processes from /proc (Linux):
// whether one still runs, and waiting for some to be gone. Tests of
// containment use it.
package procs

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Running reports whether pid exists and is not a zombie.
func Running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
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
