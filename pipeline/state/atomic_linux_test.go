package state

import (
	"os"
	"syscall"
	"testing"
)

// TestWriteFileOrderedReusesTheSpare checks that state.json is replaced by
// exchanging it with its spare: the spare then holds the previous content
// and no inode is created or deleted after the first two writes (on ext4
// without a journal each creation scans the inodes deleted in the last
// minute, which made every rotation slower than the one before).
func TestWriteFileOrderedReusesTheSpare(t *testing.T) {
	d := newDir(t)
	p := d.StatePath()
	spare := spareOf(p)
	inodes := map[uint64]bool{}
	prev := ""
	for _, content := range []string{"one", "two, longer", "three", "4"} {
		if err := writeFileOrdered(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Fatalf("state = %q, want %q", got, content)
		}
		if got, _ := os.ReadFile(spare); prev != "" && string(got) != prev {
			t.Fatalf("spare = %q, want the previous content %q", got, prev)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("perm = %v, want 0644", fi.Mode().Perm())
		}
		inodes[fi.Sys().(*syscall.Stat_t).Ino] = true
		prev = content
	}
	if len(inodes) != 2 {
		t.Errorf("state.json had %d different inodes over 4 writes, want 2 (the file and its spare, exchanged)", len(inodes))
	}
	entries, _ := os.ReadDir(d.Path())
	for _, e := range entries {
		if isTempName(e.Name()) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
