//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOverwriteUnderWritesOnlyItsOwnFile: OverwriteUnder writes over a
// regular file of one link and the same length, and leaves alone (for the
// caller to replace) a hard link to a file elsewhere, a symbolic link, a
// FIFO and a file of another length: what an agent could plant where
// ralph-ci, maybe root, writes next.
func TestOverwriteUnderWritesOnlyItsOwnFile(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "target")
	const old, next = `{"state":"aaaa"}`, `{"state":"bbbb"}`
	write := func(p, content string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(p, want string) {
		t.Helper()
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", p, b, err, want)
		}
	}
	mine := filepath.Join(root, "mine.json")
	write(mine, old)
	if !OverwriteUnder(root, mine, []byte(next)) {
		t.Error("its own file was not written over")
	}
	check(mine, next)

	write(outside, old)
	hard := filepath.Join(root, "hard.json")
	if err := os.Link(outside, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(root, "soft.json")
	if err := os.Symlink(outside, soft); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	longer := filepath.Join(root, "longer.json")
	write(longer, old+" ")
	for _, p := range []string{hard, soft, fifo, longer, filepath.Join(root, "missing.json")} {
		if OverwriteUnder(root, p, []byte(next)) {
			t.Errorf("%s was written over", filepath.Base(p))
		}
	}
	check(outside, old)
	check(longer, old+" ")
}
