//go:build linux

package changes

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSubtree: a folder's Subtree reports a change once per event under
// it (or on a folder above it), nothing for events elsewhere, and always
// a change for a folder inside .ralph, which is not watched.
func TestSubtree(t *testing.T) {
	f := gitBase(t)
	w := watcherOn(f)
	f.wtake(w) // the session runs
	fastPathOn(t, w)
	ctx := context.Background()
	specs, ralph := w.Subtree("specs"), w.Subtree(".ralph/specs")
	if !specs.Changed(ctx) {
		t.Fatal("a new Subtree reports no change")
	}
	if specs.Changed(ctx) {
		t.Fatal("nothing happened, yet a change")
	}
	f.write("a.txt", "elsewhere\n")
	if specs.Changed(ctx) {
		t.Error("a change outside the folder reported")
	}
	f.write("specs/a.spec.md", "# A\n") // creates the folder, then the file
	if !specs.Changed(ctx) || specs.Changed(ctx) {
		t.Error("a new spec is not reported once")
	}
	f.write("specs/a.spec.md", "# A, edited\n")
	if !specs.Changed(ctx) {
		t.Error("an edited spec is not reported")
	}
	f.remove("specs")
	if !specs.Changed(ctx) {
		t.Error("the folder removed is not reported")
	}
	for range 2 {
		if !ralph.Changed(ctx) {
			t.Error("a folder inside .ralph reported unchanged")
		}
	}
}

// TestSubtreeIgnoresAttributes: a chmod, a time set or (as root) a chown
// of a file under the folder is no change of its names or contents, so
// its Subtree stays quiet (ralph-ci's lending of the tree to the agent's
// user chowns every file it made), while the Watcher's snapshot still
// counts the mode (git records the executable bit; the verifier guard
// reads it) and a write after it is still reported.
func TestSubtreeIgnoresAttributes(t *testing.T) {
	f := gitBase(t)
	f.write("specs/a.spec.md", "# A\n")
	f.commitAll("specs")
	w := watcherOn(f)
	f.wtake(w)
	fastPathOn(t, w)
	ctx := context.Background()
	specs := w.Subtree("specs")
	specs.Changed(ctx) // a new Subtree's first answer
	p := filepath.Join(f.dir, "specs", "a.spec.md")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if specs.Changed(ctx) {
		t.Error("a chmod reported as a change of the specs")
	}
	if s, real := f.wtake(w); !real || s.Files["specs/a.spec.md"] == "" {
		t.Errorf("the Watcher missed the chmod: real Take %v, files %v", real, s.Files)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if specs.Changed(ctx) {
		t.Error("a time set reported as a change of the specs")
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(p, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(filepath.Join(f.dir, "specs"), 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if specs.Changed(ctx) {
			t.Error("a chown reported as a change of the specs")
		}
	}
	f.write("specs/a.spec.md", "# A, edited\n")
	if !specs.Changed(ctx) {
		t.Error("a write after the attributes' changes is not reported")
	}
	f.write("specs/b.spec.md", "# B\n")
	if err := os.Chmod(filepath.Join(f.dir, "specs", "b.spec.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !specs.Changed(ctx) {
		t.Error("a new spec followed by its chmod is not reported")
	}
}
