//go:build linux

package changes

import (
	"context"
	"testing"
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
