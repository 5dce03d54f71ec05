package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreWritesTheTreeGitWould: the tree Store.Files writes is the one
// git write-tree makes of the same files (same id: same entries in git's
// order, a folder sorting as if its name ended with "/"), in a sha1 and a
// sha256 repository, and git fsck finds its objects sound, stored (small)
// and compressed (big).
func TestStoreWritesTheTreeGitWould(t *testing.T) {
	files := map[string]string{"a.txt": "one\n", "a/b": "two\n", "a-": "three", "a/c/d\nx": "four", "b": "", "big": strings.Repeat("big\n", 20000)} // big: compressed, the others stored
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			dir := t.TempDir()
			person(t, dir, "init", "-q", "--object-format="+format)
			content := map[string][]byte{}
			for p, c := range files {
				content[p] = []byte(c)
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			person(t, dir, "add", "-A")
			want := person(t, dir, "write-tree")
			person(t, dir, "read-tree", "--empty")
			person(t, dir, "prune") // the blobs add wrote are gone: Files writes its own
			s, err := OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Files(content)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("tree %s, git write-tree made %s", got, want)
			}
			pack, err := s.Flush()
			if err != nil {
				t.Fatal(err)
			}
			person(t, dir, "verify-pack", pack+".idx")
			person(t, dir, "fsck", "--strict", "--no-dangling", "--no-progress", got)
			if b := person(t, dir, "cat-file", "blob", got+":a/c/d\nx"); b != "four" {
				t.Errorf("a/c/d\\nx holds %q", b)
			}
		})
	}
}

// TestStoreFollowsNoPlantedLink: a pack folder the agent replaced by a
// link to a folder of its choosing is made again as a folder, nothing is
// written through the link; a bad path is refused; RemovePack removes
// the pack it wrote and nothing else.
func TestStoreFollowsNoPlantedLink(t *testing.T) {
	dir := repo(t)
	elsewhere := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, ".git", "objects", "pack")
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, folder); err != nil {
		t.Fatal(err)
	}
	id, err := s.Write("blob", []byte("x"))
	if err != nil || id != ObjectID("blob", []byte("x"), 40) {
		t.Fatalf("Write: %s, %v", id, err)
	}
	pack, err := s.Flush()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(folder); err != nil || !fi.IsDir() {
		t.Fatalf("%s is not a folder: %v", folder, err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	if b := person(t, dir, "cat-file", "blob", id); b != "x" {
		t.Errorf("blob %s holds %q", id, b)
	}
	for _, bad := range []string{"a//b", "./a", "a/../b", "a/"} {
		if _, err := s.Files(map[string][]byte{bad: nil}); err == nil {
			t.Errorf("Files took %q", bad)
		}
	}
	if err := s.RemovePack(filepath.Join(dir, ".git", "config")); err == nil {
		t.Error("RemovePack took the config")
	}
	if err := s.RemovePack(pack); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(pack + ".pack"); err == nil {
		t.Error("the pack is still there")
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git", "config")); err != nil {
		t.Error(err)
	}
}

// TestAgentSwapsTheGitFolder: the agent replaces the checkout's .git,
// after ralph-ci's first use of it, by a "gitdir:" file or a link naming
// another repository (one outside the work tree, which Landlock or its
// own user keeps it from writing): neither Store nor a git command
// follows it, so nothing of ralph-ci's (a state pack, the index, fetched
// objects) is written there, and nothing is read from there.
func TestAgentSwapsTheGitFolder(t *testing.T) {
	for _, how := range []string{"gitdir file", "link"} {
		t.Run(how, func(t *testing.T) {
			dir := repo(t)
			if _, err := Open(dir); err != nil {
				t.Fatal(err)
			}
			other := t.TempDir()
			person(t, other, "init", "-q")
			dotGit := filepath.Join(dir, ".git")
			if err := os.Rename(dotGit, filepath.Join(dir, "moved")); err != nil {
				t.Fatal(err)
			}
			var err error
			if how == "link" {
				err = os.Symlink(filepath.Join(other, ".git"), dotGit)
			} else {
				err = os.WriteFile(dotGit, []byte("gitdir: "+filepath.Join(other, ".git")+"\n"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := OpenStore(dir); err == nil {
				t.Error("OpenStore took the other repository")
			}
			if out, err := Run(context.Background(), dir, "read-tree", "--empty"); err == nil {
				t.Errorf("git ran in the other repository: %s", out)
			}
			if entries, _ := os.ReadDir(filepath.Join(other, ".git", "objects", "pack")); len(entries) != 0 {
				t.Errorf("written into the other repository: %v", entries)
			}
			if _, err := os.Lstat(filepath.Join(other, ".git", "index")); err == nil {
				t.Error("an index was written into the other repository")
			}
		})
	}
}

// TestStoreWritesIntoTheSpares: the files of a pack RemovePack took away
// hold the next pack (no new file: see place), which git reads whole; a
// spare the agent made a link of (a symbolic one, or a second name of
// another file) is never written into, and the pack is written anew.
func TestStoreWritesIntoTheSpares(t *testing.T) {
	if !canSpare {
		t.Skip("no spares here")
	}
	dir := repo(t)
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	flush := func(content string) string {
		t.Helper()
		if _, err := s.Write("blob", []byte(content)); err != nil {
			t.Fatal(err)
		}
		pack, err := s.Flush()
		if err != nil {
			t.Fatal(err)
		}
		person(t, dir, "verify-pack", pack+".idx")
		if b := person(t, dir, "cat-file", "blob", ObjectID("blob", []byte(content), 40)); b != content {
			t.Fatalf("blob holds %q, want %q", b, content)
		}
		return pack
	}
	folder := filepath.Join(dir, ".git", "objects", "pack")
	first := flush("one")
	was, err := os.Stat(first + ".pack")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePack(first); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(first + ".idx"); err == nil {
		t.Fatal("the pack's index is still there")
	}
	second := flush("a longer second content")
	if now, err := os.Stat(second + ".pack"); err != nil || !os.SameFile(was, now) {
		t.Errorf("the second pack is a new file (%v)", err)
	}
	for _, name := range spares {
		if _, err := os.Lstat(filepath.Join(folder, name)); err == nil {
			t.Errorf("%s is still there", name)
		}
	}

	// The agent's turn: the spares become links to files of its choosing.
	if err := s.RemovePack(second); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	victims := map[string]string{".pack": filepath.Join(elsewhere, "hard"), ".idx": filepath.Join(elsewhere, "soft")}
	for ext, victim := range victims {
		if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		spare := filepath.Join(folder, spares[ext])
		if err := os.Remove(spare); err != nil {
			t.Fatal(err)
		}
		link := os.Link
		if ext == ".idx" {
			link = os.Symlink
		}
		if err := link(victim, spare); err != nil {
			t.Fatal(err)
		}
	}
	third := flush("third")
	for _, victim := range victims {
		if b, err := os.ReadFile(victim); err != nil || string(b) != "mine" {
			t.Errorf("%s holds %q (%v): written through the spare", victim, b, err)
		}
	}

	// The run's end: the spares go, the last pack stays.
	if err := s.RemovePack(second); err != nil { // gone already: nothing to do
		t.Fatal(err)
	}
	if err := s.DropSpares(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(filepath.Join(folder, e.Name()), third) {
			t.Errorf("%s is left in the pack folder", e.Name())
		}
	}
}
