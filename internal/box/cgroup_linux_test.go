package box

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// openOrSkip opens a cgroup box, or skips where no cgroup is writable.
func openOrSkip(t *testing.T) *Boxes {
	t.Helper()
	b, err := Open(Cgroup, "")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if left, err := b.Close(); err != nil || len(left) > 0 {
			t.Errorf("Close: %v, killed %v", err, left)
		}
		if _, err := os.Stat(b.Where()); !os.IsNotExist(err) {
			t.Errorf("the run's cgroup %s is still there", b.Where())
		}
	})
	return b
}

// run starts sh -c script in a box of b, waits for sh, and empties the box.
func run(t *testing.T, b *Boxes, script string) []Proc {
	t.Helper()
	x, err := b.New()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if err := x.Prepare(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	killed, err := x.Empty(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return killed
}

// A setsid'd process that outlives its parent, and a chain of forks, are
// killed, named, and reaped; the box is gone afterwards.
func TestEmptyKillsWhatOutlivedTheStart(t *testing.T) {
	b := openOrSkip(t)
	for _, tc := range []struct{ name, script, comm string }{
		// The survivors say they run (a line in $F) before sh exits. The
		// chain's forking loop (sh) is always alive when the box is
		// emptied, whereas its newest link may not have become a sleep yet
		// on a loaded machine: the loop is what must be named.
		{"setsid survivor", `setsid sh -c 'sleep 1000 & echo >> "$F"; wait' < /dev/null > /dev/null 2>&1 &
until [ -s "$F" ]; do sleep 0.01; done`, "sleep"},
		{"fork chain", `setsid sh -c 'while :; do sh -c "sleep 1000" & echo >> "$F"; done' < /dev/null > /dev/null 2>&1 &
until [ "$(wc -l < "$F")" -gt 20 ]; do sleep 0.01; done`, "sh"},
		{"nothing left", `true`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("F", t.TempDir()+"/ran")
			killed := run(t, b, tc.script)
			if tc.comm == "" {
				if len(killed) != 0 {
					t.Errorf("killed %v, want none", killed)
				}
				return
			}
			if !strings.Contains(Names(killed), "("+tc.comm+")") {
				t.Errorf("killed %q, want a %s among them", Names(killed), tc.comm)
			}
			for _, p := range killed {
				if procs.Running(p.PID) {
					t.Errorf("process %v is still there", p)
				}
			}
		})
	}
	if entries, _ := os.ReadDir(b.Where()); len(entries) > 0 {
		for _, e := range entries {
			if e.IsDir() {
				t.Errorf("box %s left behind", e.Name())
			}
		}
	}
}

// Open refuses an unknown mode; Off gives no box, whose methods work.
func TestOpenModes(t *testing.T) {
	if _, err := Open("jail", ""); err == nil {
		t.Error("Open accepted mode jail")
	}
	b, err := Open(Off, "")
	if err != nil || b != nil || b.Kind() != Off {
		t.Fatalf("Open(off) = %v, %v", b, err)
	}
	x, err := b.New()
	if err != nil || x != nil {
		t.Fatalf("New of no box = %v, %v", x, err)
	}
	if killed, err := x.Empty(1); killed != nil || err != nil {
		t.Errorf("Empty of no box = %v, %v", killed, err)
	}
}

// mountinfo's octal escapes are undone.
func TestUnescape(t *testing.T) {
	if got := unescape(`/sys/fs/cgroup\040x`); got != "/sys/fs/cgroup x" {
		t.Errorf("unescape = %q", got)
	}
}
