package discovery

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A watching Finder does not walk while nothing happened, and sees every
// kind of change: a rewrite that keeps the file's time, a new folder, a
// spec folder or prompt file that appears, a removal.
func TestFinderWatchSeesEveryChange(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.MkdirAll(filepath.Join(root, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite(t, root, "specs/a.spec.md", "# aaaa\n", old)
	f := &Finder{Root: root, Options: Default}
	if err := f.Watch(); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	findOne(t, f, "specs/a.spec.md")
	walks := f.walks
	if got := findOne(t, f, "specs/a.spec.md").Hash; got != hashOf("# aaaa\n") || f.walks != walks || f.Changed() {
		t.Fatalf("quiet find: hash %s, %d walks (was %d), changed %v", got, f.walks, walks, f.Changed())
	}

	steps := []struct {
		name   string
		change func()
		path   string // a spec that must then be found
		hash   string // its content
	}{
		{"rewritten, its time kept", func() { rewrite(t, root, "specs/a.spec.md", "# AAAAA\n", old) }, "specs/a.spec.md", "# AAAAA\n"},
		{"a new folder with a spec", func() { write(t, root, "specs/deep/b.spec.md") }, "specs/deep/b.spec.md", "# specs/deep/b.spec.md\n"},
		{"a spec in the new folder", func() { write(t, root, "specs/deep/c.spec.md") }, "specs/deep/c.spec.md", "# specs/deep/c.spec.md\n"},
		{"a missing spec folder appears", func() { write(t, root, ".ralph/specs/d.spec.md") }, ".ralph/specs/d.spec.md", "# .ralph/specs/d.spec.md\n"},
		{"the prompt file appears", func() { write(t, root, "PROMPT.md") }, "PROMPT.md", "# PROMPT.md\n"},
		{"the prompt file changes", func() { rewrite(t, root, "PROMPT.md", "# new prompt\n", old) }, "PROMPT.md", "# new prompt\n"},
	}
	for _, st := range steps {
		st.change()
		if got := findOne(t, f, st.path).Hash; got != hashOf(st.hash) {
			t.Errorf("%s: hash %s, want that of %q", st.name, got, st.hash)
		}
		if !f.Changed() {
			t.Errorf("%s: Changed is false", st.name)
		}
		walks := f.walks
		findOne(t, f, st.path)
		if f.walks != walks && st.name != "the prompt file appears" { // a new prompt file is too recent to trust
			t.Errorf("%s: the next find walked again", st.name)
		}
	}
	if err := os.Remove(filepath.Join(root, "specs/deep/b.spec.md")); err != nil {
		t.Fatal(err)
	}
	specs, err := f.Find()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.Path == "specs/deep/b.spec.md" {
			t.Error("a removed spec is still found")
		}
	}
}
