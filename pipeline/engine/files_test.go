package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/changes"
)

// TestFilesFollowTheSnapshot: the file list is made again only when the
// change detection's latest snapshot differs, so a new test file the agent
// writes is listed as soon as the snapshot that sees it is taken, and an
// unchanged snapshot costs no git process.
func TestFilesFollowTheSnapshot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write := func(name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	take := func() *changes.Snapshot {
		t.Helper()
		s, err := changes.Take(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		return &s
	}
	write("a_test.go")
	e := &engine{root: root}
	e.latest = take()
	if got := e.files(); !slices.Equal(got, []string{"a_test.go"}) {
		t.Fatalf("files = %q, want [a_test.go]", got)
	}
	write("b_test.go")
	if got := e.files(); !slices.Equal(got, []string{"a_test.go"}) {
		t.Fatalf("same snapshot: files = %q, want the list made for it (no new git process)", got)
	}
	e.latest = take()
	if got := e.files(); !slices.Equal(got, []string{"a_test.go", "b_test.go"}) {
		t.Fatalf("new snapshot: files = %q, want b_test.go listed too", got)
	}
	e.latest = nil
	write("c_test.go")
	if got := e.files(); len(got) != 3 {
		t.Fatalf("no snapshot: files = %q, want a fresh list of 3", got)
	}
}
