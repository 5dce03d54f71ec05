package job

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/livedir"
)

// TestRemoveStaleScratch: a scratch folder whose ralph-ci is gone (a run
// killed with SIGKILL) is removed; one whose ralph-ci runs, and folders
// not named so, stay.
func TestRemoveStaleScratch(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc here")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := scratchPrefix + "2147483646-1"                     // no such pid
	alive := scratchPrefix + strconv.Itoa(os.Getppid()) + "-2" // go test's
	other := "ralph-ci-scratch-notapid-3"
	for _, d := range []string{gone, alive, other} {
		if err := os.MkdirAll(filepath.Join(tmp, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	livedir.RemoveStale(scratchPrefix)
	for d, want := range map[string]bool{gone: false, alive: true, other: true} {
		if _, err := os.Stat(filepath.Join(tmp, d)); (err == nil) != want {
			t.Errorf("%s: there %t, want %t", d, err == nil, want)
		}
	}
}
