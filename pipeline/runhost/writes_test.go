package runhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRemoveStaleScratch: a scratch folder whose ralph-ci is gone (a run
// killed with SIGKILL, a process that ended) is removed; one whose
// ralph-ci runs, and folders not named so, stay. It asks the system, not
// /proc, so that it holds on macOS and Windows too.
func TestRemoveStaleScratch(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TMP", tmp) // Windows's os.TempDir
	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	never := scratchPrefix + "2147483646-1"                        // no such pid
	gone := scratchPrefix + strconv.Itoa(ended.Process.Pid) + "-4" // ended and reaped
	alive := scratchPrefix + strconv.Itoa(os.Getppid()) + "-2"     // go test's
	other := "ralph-ci-scratch-notapid-3"
	for _, d := range []string{never, gone, alive, other} {
		if err := os.MkdirAll(filepath.Join(tmp, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleScratch()
	for d, want := range map[string]bool{never: false, gone: false, alive: true, other: true} {
		if _, err := os.Stat(filepath.Join(tmp, d)); (err == nil) != want {
			t.Errorf("%s: there %t, want %t", d, err == nil, want)
		}
	}
}
