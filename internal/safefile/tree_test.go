//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTreeRefusesALinkOut: a work tree's file read by ralph-ci (as root
// it could read anything) through a link that leads out of the tree, or
// through a folder that is one, is refused with an error naming the path;
// a link that stays inside is followed; a FIFO does not block.
func TestTreeRefusesALinkOut(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "tree")
	secret := filepath.Join(dir, "secret")
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	must(t, os.WriteFile(secret, []byte("marker"), 0o600))
	must(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("honest"), 0o644))
	must(t, os.Symlink(secret, filepath.Join(root, "out.md")))
	must(t, os.Symlink("../secret", filepath.Join(root, "rel.md")))
	must(t, os.Symlink(dir, filepath.Join(root, "outdir")))
	must(t, os.Symlink("docs/a.md", filepath.Join(root, "in.md")))
	must(t, os.Symlink("docs", filepath.Join(root, "indir")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	tree, err := OpenTree(root)
	must(t, err)
	defer tree.Close()
	for _, name := range []string{"out.md", "rel.md", "outdir/secret"} {
		p := filepath.Join(root, name)
		b, err := tree.Read(p, 100)
		if !errors.Is(err, ErrLeavesTree) || !strings.Contains(err.Error(), p) || b != nil {
			t.Errorf("Read(%s) = %q, %v; want ErrLeavesTree naming the path", name, b, err)
		}
		if _, err := tree.Stat(p); !errors.Is(err, ErrLeavesTree) {
			t.Errorf("Stat(%s) = %v; want ErrLeavesTree", name, err)
		}
	}
	for _, name := range []string{"in.md", "indir/a.md", "docs/a.md"} {
		if b, err := ReadIn(root, filepath.Join(root, name), 100); err != nil || string(b) != "honest" {
			t.Errorf("ReadIn(%s) = %q, %v; want the file a link inside the tree names", name, b, err)
		}
	}
	if _, err := tree.Read(filepath.Join(root, "fifo"), 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read(fifo) = %v; want ErrNotRegular", err)
	}
	if _, err := tree.Read(filepath.Join(root, "big"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(missing) = %v; want fs.ErrNotExist", err)
	}
	if b, err := ReadInOptional(root, filepath.Join(root, "missing"), 100); b != nil || err != nil {
		t.Errorf("ReadInOptional(missing) = %q, %v", b, err)
	}
	if _, err := tree.Read(secret, 100); err == nil || !strings.Contains(err.Error(), "not below the work tree") {
		t.Errorf("Read of a path outside = %v", err)
	}
}
