//go:build unix

package state

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSpareLinkIsReplacedNotFollowed: the agent, lent .ralph/, makes the
// state's spare a link to a file outside, or a FIFO: the save removes it
// and writes a new spare (the outside file is untouched, the save does
// not hang), and OnReplaced is told.
func TestSpareLinkIsReplacedNotFollowed(t *testing.T) {
	for _, kind := range []string{"link", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("root's"), 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "state.json")
			if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			if kind == "link" {
				if err := os.Symlink(victim, spareOf(path)); err != nil {
					t.Fatal(err)
				}
			} else if err := syscall.Mkfifo(spareOf(path), 0o644); err != nil {
				t.Fatal(err)
			}
			var told []string
			OnReplaced(func(p string, _ error) { told = append(told, p) })
			defer OnReplaced(func(string, error) {})
			if err := writeFileOrdered(path, []byte(`{"v":1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != `{"v":1}` {
				t.Errorf("state.json = %q", got)
			}
			if got, _ := os.ReadFile(victim); string(got) != "root's" {
				t.Errorf("the link's target was written: %q", got)
			}
			if len(told) != 1 || told[0] != spareOf(path) {
				t.Errorf("OnReplaced told %v, want the spare", told)
			}
		})
	}
}
