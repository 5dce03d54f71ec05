package procs

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A started process runs; once killed and reaped it is gone, and
// Survivors no longer names it.
func TestRunningAndSurvivors(t *testing.T) {
	if !Running(os.Getpid()) {
		t.Fatal("this process is not running")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	pid := cmd.Process.Pid
	if left := Survivors([]int{pid}, 0); len(left) != 1 {
		t.Errorf("Survivors of a sleeping process = %v", left)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if left := Survivors([]int{pid}, time.Second); len(left) != 0 {
		t.Errorf("Survivors after kill = %v", left)
	}
}
