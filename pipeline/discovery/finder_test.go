package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// rewrite replaces the content of root/rel with content of the same size
// and sets its modification time to mtime.
func rewrite(t *testing.T, root, rel, content string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// twoOldSpecs is a root with specs/a.spec.md and specs/b.spec.md, written
// an hour ago (old): old enough for their hashes to be trusted.
func twoOldSpecs(t *testing.T) (root string, old time.Time) {
	t.Helper()
	root = t.TempDir()
	old = time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.MkdirAll(filepath.Join(root, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite(t, root, "specs/a.spec.md", "# aaaa\n", old)
	rewrite(t, root, "specs/b.spec.md", "# bbbb\n", old)
	return root, old
}

func findOne(t *testing.T, f *Finder, path string) Spec {
	t.Helper()
	specs, err := f.Find()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.Path == path {
			return s
		}
	}
	t.Fatalf("%s not found in %s", path, paths(specs))
	return Spec{}
}

// An old file whose size and modification time did not change is not read
// again: its content is swapped behind the Finder's back (same size, same
// time) and the Finder still gives the first hash, where Find reads anew.
func TestFinderHashesOnlyWhatChanged(t *testing.T) {
	root, old := twoOldSpecs(t)
	f := &Finder{Root: root, Options: Default}
	if got := findOne(t, f, "specs/a.spec.md").Hash; got != hashOf("# aaaa\n") {
		t.Fatalf("first find: hash %s", got)
	}
	if !f.Changed() {
		t.Error("first find: Changed is false")
	}
	rewrite(t, root, "specs/a.spec.md", "# AAAA\n", old)
	if got := findOne(t, f, "specs/a.spec.md").Hash; got != hashOf("# aaaa\n") {
		t.Errorf("unchanged stamp: the file was hashed again (%s)", got)
	}
	if f.Changed() {
		t.Error("nothing changed, yet Changed is true")
	}
	if specs, _ := Find(root, Default); specs[0].Hash != hashOf("# AAAA\n") {
		t.Errorf("Find must read every file: got %s", specs[0].Hash)
	}
	// A new size, or a new time, is a change.
	rewrite(t, root, "specs/a.spec.md", "# aaaaa\n", old)
	if got := findOne(t, f, "specs/a.spec.md").Hash; got != hashOf("# aaaaa\n") {
		t.Errorf("changed size: stale hash %s", got)
	}
	if !f.Changed() {
		t.Error("a spec changed, yet Changed is false")
	}
	rewrite(t, root, "specs/b.spec.md", "# BBBB\n", old.Add(time.Second))
	if got := findOne(t, f, "specs/b.spec.md").Hash; got != hashOf("# BBBB\n") {
		t.Errorf("changed time: stale hash %s", got)
	}
	// Added and removed files are seen.
	write(t, root, "specs/c.spec.md")
	if err := os.Remove(filepath.Join(root, "specs/b.spec.md")); err != nil {
		t.Fatal(err)
	}
	specs, err := f.Find()
	if err != nil || paths(specs) != "specs/a.spec.md specs/c.spec.md" {
		t.Errorf("after add and remove: %s, %v", paths(specs), err)
	}
}

// A file hashed right after it was written can be rewritten within the
// same timestamp: its hash is not trusted until it is old enough.
func TestFinderRehashesRecentFiles(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	if err := os.MkdirAll(filepath.Join(root, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite(t, root, "specs/a.spec.md", "# aaaa\n", now)
	f := &Finder{Root: root, Options: Default}
	findOne(t, f, "specs/a.spec.md")
	rewrite(t, root, "specs/a.spec.md", "# AAAA\n", now)
	if got := findOne(t, f, "specs/a.spec.md").Hash; got != hashOf("# AAAA\n") {
		t.Errorf("a recent file kept a stale hash %s", got)
	}
}

// Contents hands over, once, the bytes each Find read, the very bytes of
// each spec's Hash: every file at the first Find, none while nothing
// changed, the changed file only after a change.
func TestFinderContents(t *testing.T) {
	root, old := twoOldSpecs(t)
	f := &Finder{Root: root, Options: Default}
	specs, err := f.Find()
	if err != nil {
		t.Fatal(err)
	}
	read := f.Contents()
	if len(read) != 2 {
		t.Fatalf("first find read %d files, want 2", len(read))
	}
	for _, sp := range specs {
		if hashOf(string(read[sp.Path])) != sp.Hash {
			t.Errorf("%s: content %q is not what was hashed", sp.Path, read[sp.Path])
		}
	}
	if again := f.Contents(); again != nil {
		t.Errorf("handed over twice: %v", again)
	}
	if _, err := f.Find(); err != nil {
		t.Fatal(err)
	}
	if read := f.Contents(); read != nil {
		t.Errorf("nothing changed, yet read %v", read)
	}
	rewrite(t, root, "specs/b.spec.md", "# BBBBB\n", old)
	if _, err := f.Find(); err != nil {
		t.Fatal(err)
	}
	if read := f.Contents(); len(read) != 1 || string(read["specs/b.spec.md"]) != "# BBBBB\n" {
		t.Errorf("after a change: %q", read)
	}
}

// A folder the caller says nothing happened in keeps the last walk's
// specs without being listed again; once it says otherwise, the walk sees
// what changed, and the other folders are walked as ever.
func TestFinderSkipsAnUnchangedFolder(t *testing.T) {
	root, old := twoOldSpecs(t)
	quiet := map[string]bool{}
	f := &Finder{Root: root, Options: Options{Dirs: []string{"more", "specs"}}, Unchanged: func(dir string) bool { return quiet[dir] }}
	first, err := f.Find()
	if err != nil || len(first) != 2 {
		t.Fatalf("first Find: %v, %v", first, err)
	}
	quiet["specs"] = true
	rewrite(t, root, "specs/c.spec.md", "# cccc\n", old) // unseen: the folder is not listed
	if err := os.MkdirAll(filepath.Join(root, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite(t, root, "more/d.spec.md", "# dddd\n", old)
	got, err := f.Find()
	if err != nil || len(got) != 3 || got[0].Path != "more/d.spec.md" || got[2].Path != "specs/b.spec.md" || !f.Changed() {
		t.Fatalf("with specs/ unchanged: %v, %v (changed %v)", got, err, f.Changed())
	}
	if again, _ := f.Find(); f.Changed() || len(again) != 3 {
		t.Fatalf("nothing changed, yet %v (changed %v)", again, f.Changed())
	}
	quiet["specs"] = false
	if got, err := f.Find(); err != nil || len(got) != 4 || !f.Changed() {
		t.Fatalf("specs/ walked again: %v, %v", got, err)
	}
}

// When every folder is quiet (unchanged, or absent as before) and the
// prompt file is as it was, Find hands back the last result itself,
// without rebuilding it; a folder that appears with a spec, or a prompt
// file rewritten, is seen at the next Find. Unchanged is asked once a
// folder and Find, so a change it reports once is not lost.
func TestFinderReturnsTheLastResultWhenQuiet(t *testing.T) {
	root, old := twoOldSpecs(t)
	asked := map[string]int{}
	f := &Finder{Root: root, Options: Options{Prompt: "PROMPT.md", Dirs: []string{"absent", "specs"}},
		Unchanged: func(dir string) bool { asked[dir]++; return dir == "specs" }}
	first, err := f.Find()
	if err != nil || len(first) != 2 {
		t.Fatalf("first Find: %v, %v", first, err)
	}
	clear(asked)
	again, err := f.Find()
	if err != nil || &again[0] != &first[0] || f.Changed() {
		t.Fatalf("nothing changed, yet a new result %v, %v (changed %v)", again, err, f.Changed())
	}
	if asked["absent"] != 1 || asked["specs"] != 1 {
		t.Fatalf("Unchanged asked %v, want once a folder", asked)
	}
	if err := os.MkdirAll(filepath.Join(root, "absent"), 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite(t, root, "absent/d.spec.md", "# dddd\n", old)
	got, err := f.Find()
	if err != nil || len(got) != 3 || got[0].Path != "absent/d.spec.md" || !f.Changed() {
		t.Fatalf("a folder that appeared: %v, %v (changed %v)", got, err, f.Changed())
	}
	rewrite(t, root, "PROMPT.md", "# prompt\n", old)
	got, err = f.Find()
	if err != nil || len(got) != 4 || !got[0].Prompt || !f.Changed() {
		t.Fatalf("a prompt file that appeared: %v, %v (changed %v)", got, err, f.Changed())
	}
}
