package git

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStoreWritesTheTreeGitWould: the tree Store.Files writes is the one
// git write-tree makes of the same files (same id: same entries in git's
// order, a folder sorting as if its name ended with "/"), in a sha1 and a
// sha256 repository, and git fsck finds its objects sound.
func TestStoreWritesTheTreeGitWould(t *testing.T) {
	files := map[string]string{"a.txt": "one\n", "a/b": "two\n", "a-": "three", "a/c/d\nx": "four", "b": ""}
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
