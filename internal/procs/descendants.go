package procs

import (
	"bytes"
	"os"
	"strconv"
)

// Descendants lists the processes below pid, breadth first. It follows
// the children files of /proc/PID/task/TID, which cost a few reads for a
// small tree; where the kernel has none (CONFIG_PROC_CHILDREN off) it
// reads the parent of every process in /proc instead. Processes that fork
// or exit during the walk may be missed: callers that must not miss any
// walk again until nothing is left.
func Descendants(pid int) []int {
	children := childrenOf
	if _, ok := childrenOf(pid); !ok {
		children = scanAll().childrenOf
	}
	var out []int
	queue, _ := children(pid)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		kids, _ := children(p)
		queue = append(queue, kids...)
	}
	return out
}

// childrenOf reads the children of every thread of pid; ok is false when
// the kernel has no children files (or pid is gone).
func childrenOf(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	for _, t := range tasks {
		raw, err := os.ReadFile(dir + t.Name() + "/children")
		if err != nil {
			if os.IsNotExist(err) {
				return kids, false
			}
			continue // the thread exited
		}
		for _, f := range bytes.Fields(raw) {
			if k, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids, true
}

// tree maps a pid to its children.
type tree map[int][]int

func (t tree) childrenOf(pid int) ([]int, bool) { return t[pid], true }

// scanAll reads the parent of every process in /proc.
func scanAll() tree {
	t := tree{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return t
	}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			t[pp] = append(t[pp], p)
		}
	}
	return t
}

// parentOf reads the parent of pid from /proc/pid/stat.
func parentOf(pid int) (int, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}
