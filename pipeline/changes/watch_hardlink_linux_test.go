//go:build linux

package changes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tracked file written through a hard link outside the repository makes
// no event under the root: a file with a second name when the watcher
// starts turns the fast path off, so the writes through it are still seen.
func TestWatcherHardLinkOutside(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	outside := filepath.Join(t.TempDir(), "alias.txt")
	if err := os.Link(filepath.Join(f.dir, "a.txt"), outside); err != nil {
		t.Fatal(err)
	}
	w := watcherOn(f)
	s, _ := f.wtake(w)
	if on, why := w.FastPath(); on || !strings.Contains(why, "hard links") {
		t.Fatalf("fast path on=%v (%s), want off for the hard link", on, why)
	}
	for i, content := range []string{"first\n", "second\n"} {
		if err := os.WriteFile(outside, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		after, _ := f.wtake(w)
		wantChanged(t, f.changed(s, after), "a.txt")
		if t.Failed() {
			t.Fatalf("write %d through the link was not seen", i+1)
		}
		s = after
	}
}
