package agentuser

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkLend is the cost of lending a work tree of 20,000 files
// (200 folders) before a start, when nothing changed owner since the
// last start (a walk that changes nothing), which is what each start of
// a rotation pays: with what Lend's last walk saw (seen), and without
// (unseen). Root only (it chowns).
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
	// Lend's own walk remembers the folders it found unchanged (seen);
	// without, every entry is looked at.
	for _, name := range []string{"unseen", "seen"} {
		b.Run(name, func(b *testing.B) {
			var seen seenDirs
			if name == "seen" {
				defer func(clock func() time.Time) { now = clock }(now)
				now = func() time.Time { return time.Now().Add(time.Second) } // the tree was just made
				seen = seenDirs{}
			}
			for b.Loop() {
				if n, err := chownTreeSeen(tree, uid, gid, true, seen); err != nil || n != 0 {
					b.Fatal(n, err)
				}
			}
		})
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

// Sweep removes from ralph-ci's folder what is neither a file nor a
// folder (links to files and folders, a FIFO, the folder itself as a
// link), never following a link, and keeps the rest: what was there at
// the Snapshot (a user's link) and the agent's own files (status).
func TestSweepRemovesLinksAndSpecials(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	own := filepath.Join(base, "tree", ".ralph")
	for _, d := range []string{outside, filepath.Join(own, "history", "a")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(own, "state.json"), filepath.Join(own, "history", "a", "001.log"), filepath.Join(outside, "victim")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(own, "history", "a", "002.log"): filepath.Join(outside, "victim"),
		filepath.Join(own, "progress"):                outside,
		filepath.Join(own, ".state.json.spare"):       filepath.Join(outside, "new"),
	}
	// There before any agent: a user's link, kept.
	users := filepath.Join(own, "reports")
	if err := os.Symlink(outside, users); err != nil {
		t.Fatal(err)
	}
	r := &Run{Tree: filepath.Dir(own)}
	r.Snapshot(own)
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(own, "current.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(own, "status"), 0o644); err != nil { // the agent's own file
		t.Fatal(err)
	}
	removed, err := r.Sweep(own, "status")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 4 {
		t.Errorf("removed %q, want the 3 links and the FIFO", removed)
	}
	for _, p := range append(slices.Collect(maps.Keys(links)), filepath.Join(own, "current.log")) {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is left", p)
		}
	}
	for _, p := range []string{filepath.Join(own, "state.json"), filepath.Join(own, "history", "a", "001.log"), filepath.Join(outside, "victim"), users, filepath.Join(own, "status")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// ralph-ci's folder itself as a link: removed, its target kept.
	if err := os.RemoveAll(own); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, own); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sweep(own); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(own); err == nil {
		t.Error("the folder as a link is left")
	}
	if _, err := os.Stat(filepath.Join(outside, "victim")); err != nil {
		t.Errorf("the link's target went too: %v", err)
	}
}

// TestLendWalksWhatChanged: a walk of Lend's reads again only the
// folders whose times moved since the last one: an entry ralph-ci (root)
// makes deep in the tree, a file or a folder with a file in it, or a file
// in a folder without subfolders (which an unchanged walk does not open),
// is the user's after the next walk, and a folder swapped for a link to one
// outside leads the walk nowhere; an entry whose owner changed in a
// folder that did not change (which only ralph-ci's own chown does, and
// Close, that does it, forgets what was seen) is spared, where a walk
// that saw nothing before gives it.
func TestLendWalksWhatChanged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chowns: needs root")
	}
	defer func(clock func() time.Time) { now = clock }(now)
	now = func() time.Time { return time.Now().Add(time.Second) } // no folder is racy
	const uid, gid = 4243, 4243
	tree := t.TempDir()
	outside := t.TempDir()
	for _, p := range []string{"a/b/f", "a/c/g", "top", "leaf/x"} {
		mkfile(t, filepath.Join(tree, p))
	}
	mkfile(t, filepath.Join(outside, "secret"))
	seen := seenDirs{}
	if n, err := chownTreeSeen(tree, uid, gid, true, seen); err != nil || n != 9 {
		t.Fatalf("first walk: %d changed, %v; want 9", n, err)
	}
	if len(seen) == 0 {
		t.Fatal("the walk recorded no folder")
	}
	mustOwn := func(p string, want uint32) {
		t.Helper()
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		if st.Uid != want {
			t.Errorf("%s is uid %d, want %d", p, st.Uid, want)
		}
	}
	// Given back behind the walk's back: spared by a walk that saw it.
	if err := os.Lchown(filepath.Join(tree, "a", "b", "f"), 0, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := chownTreeSeen(tree, uid, gid, true, seen); err != nil || n != 0 {
		t.Fatalf("a walk of an unchanged tree changed %d, %v", n, err)
	}
	mustOwn(filepath.Join(tree, "a", "b", "f"), 0)
	// Made by root deep down, a file and a folder with a file; a folder
	// swapped for a link.
	mkfile(t, filepath.Join(tree, "a", "c", "new"))
	mkfile(t, filepath.Join(tree, "leaf", "y")) // in a folder with no subfolder, under one unchanged
	mkfile(t, filepath.Join(tree, "a", "b", "deeper", "x"))
	if err := os.RemoveAll(filepath.Join(tree, "a", "c")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "a", "c")); err != nil {
		t.Fatal(err)
	}
	if _, err := chownTreeSeen(tree, uid, gid, true, seen); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/b/deeper", "a/b/deeper/x", "a/b/f", "leaf/y"} {
		mustOwn(filepath.Join(tree, p), uid) // a/b changed: read again, f given too
	}
	mustOwn(outside, 0)
	mustOwn(filepath.Join(outside, "secret"), 0)
	// A walk that saw nothing gives what the spared walk spared.
	if err := os.Lchown(filepath.Join(tree, "top"), 0, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := chownTreeSeen(tree, uid, gid, true, nil); err != nil || n != 1 {
		t.Fatalf("a walk without what was seen changed %d, %v; want 1", n, err)
	}
}

func mkfile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
