package procs

import (
	"bytes"
	"os"
	"strconv"
)

// Descendants lists the processes below pid, breadth first, from the
// parent of every process in /proc. Processes that fork or exit during
// the walk may be missed: callers that must not miss any walk again
// until nothing is left.
//
// It does not read the children files of /proc/PID/task/TID, which would
// read only the tree: the kernel then makes reaping the process that read
// them cost ~3 ms of its parent's CPU (measured on Linux 6.1), more than
// this whole scan.
func Descendants(pid int) []int {
	children := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := Parent(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		queue = append(queue, children[p]...)
	}
	return out
}

// Parent reads the parent of pid from /proc/pid/stat; ok is false when
// it cannot be read.
func Parent(pid int) (ppid int, ok bool) {
	after, _ := stat(pid)
	f := bytes.Fields(after)
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}
