//go:build linux

package livedir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A folder is removed as stale only when no run holds it and its PID is
// gone: a run of another PID namespace (a PID this one does not see)
// that holds its folder keeps it; a ralph-ci from before the lock keeps
// its folder while its PID lives.
func TestRemoveStale(t *testing.T) {
	const prefix = "livedir-test-"
	t.Setenv("TMPDIR", t.TempDir())
	mk := func(pid int) string {
		p, err := os.MkdirTemp("", prefix+strconv.Itoa(pid)+"-")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const gone = 1 << 22 // above pid_max's default: no process has it here
	heldElsewhere := mk(gone)
	f, err := hold(heldElsewhere)
	if err != nil {
		t.Fatal(err)
	}
	left := mk(gone)
	older := mk(1) // PID 1 lives
	d, err := Make(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(d.Path), prefix+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("Make made %s", d.Path)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if exists(left) {
		t.Errorf("%s (no run holds it, its PID is gone) stays", left)
	}
	for _, p := range []string{heldElsewhere, older, d.Path} {
		if !exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	f.Close()
	RemoveStale(prefix)
	if exists(heldElsewhere) {
		t.Errorf("%s stays once let go", heldElsewhere)
	}
	if err := d.Remove(); err != nil || exists(d.Path) {
		t.Errorf("Remove: %v", err)
	}
	if pending, _ := filepath.Glob(filepath.Join(os.TempDir(), ".pending-*")); len(pending) != 0 {
		t.Errorf("left: %v", pending)
	}
}
