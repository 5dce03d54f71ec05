package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// stopLeftovers kills the processes a crashed run left behind: every
// process whose environment carries RALPH_RUN_ID=runID (the agents of that
// run and whatever they started, even those that left the process group).
// It waits, briefly, until they are gone and returns how many it killed.
func stopLeftovers(runID string) int {
	if runID == "" {
		return 0
	}
	needle := []byte("\x00RALPH_RUN_ID=" + runID + "\x00")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var killed []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), needle) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	procs.Survivors(killed, 5*time.Second)
	return len(killed)
}
