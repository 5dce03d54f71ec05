package agentuser

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkLend is the cost of lending a work tree of 20,000 files
// (200 folders) before a start, when nothing changed owner since the
// last start (a walk that changes nothing), which is what each start of
// a rotation pays. Root only (it chowns).
func BenchmarkLend(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("chowns: needs root")
	}
	tree := b.TempDir()
	for d := 0; d < 200; d++ {
		dir := filepath.Join(tree, fmt.Sprintf("d%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	const uid, gid = 4243, 4243
	if _, err := chownTree(tree, uid, gid, true); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if n, err := chownTree(tree, uid, gid, true); err != nil || n != 0 {
			b.Fatal(n, err)
		}
	}
}

// TestChownTreeKeepsToTheTree: a symbolic link to a file outside and a
// hard link of another owner's file are left as they are; everything
// else in the tree changes owner.
func TestChownTreeKeepsToTheTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chowns: needs root")
	}
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "a", "b", "f"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(tree, "hard")); err != nil {
		t.Fatal(err)
	}
	if _, err := chownTree(tree, 4243, 4243, true); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]uint32{tree: 4243, filepath.Join(tree, "a", "b", "f"): 4243, outside: 0} {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		if st.Uid != want {
			t.Errorf("%s is uid %d, want %d", p, st.Uid, want)
		}
	}
}
