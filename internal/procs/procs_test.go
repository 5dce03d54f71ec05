//go:build unix

package procs

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
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

// Descendants finds a child and its grandchild.
func TestDescendants(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	buf := make([]byte, 32)
	n, err := out.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("sh said %q", buf[:n])
	}
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	want := []int{cmd.Process.Pid, grandchild}
	if got := Descendants(os.Getpid()); !slices.Equal(got, want) {
		t.Errorf("Descendants = %v, want %v", got, want)
	}
}
