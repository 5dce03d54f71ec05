package changes

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testGitEnv makes commits work on a machine with no git identity and keeps
// the user's own git configuration (signing, hooks, templates) out of tests.
func testGitEnv() []string {
	return append(os.Environ(),
		"GIT_AUTHOR_NAME=Ralph Test", "GIT_AUTHOR_EMAIL=ralph@example.com",
		"GIT_COMMITTER_NAME=Ralph Test", "GIT_COMMITTER_EMAIL=ralph@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
	)
}

// fixture is a directory under test, usually a git work tree.
type fixture struct {
	t   testing.TB
	dir string
}

// newRepo creates an empty git repository with extra git init args.
func newRepo(t testing.TB, initArgs ...string) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.git(append([]string{"init", "-q", "-b", "main"}, initArgs...)...)
	return f
}

// newTree creates an empty directory that is not a git work tree.
func newTree(t testing.TB) *fixture {
	t.Helper()
	return &fixture{t: t, dir: t.TempDir()}
}

// git runs git in the fixture and returns its output.
func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return runIn(f.t, f.dir, args...)
}

// gitMayFail runs git in the fixture and returns its error, if any.
func (f *fixture) gitMayFail(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = f.dir
	cmd.Env = testGitEnv()
	return cmd.Run()
}

// runIn runs git in dir and fails the test if it fails.
func runIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = testGitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// write creates or replaces the file at the slash path rel.
func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// touch moves the file's times forward without changing its content.
func (f *fixture) touch(rel string) {
	f.t.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(f.dir, filepath.FromSlash(rel)), later, later); err != nil {
		f.t.Fatal(err)
	}
}

// remove deletes a file or directory tree.
func (f *fixture) remove(rel string) {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Join(f.dir, filepath.FromSlash(rel))); err != nil {
		f.t.Fatal(err)
	}
}

// symlink creates a symbolic link at rel pointing to target.
func (f *fixture) symlink(target, rel string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	_ = os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		f.t.Skipf("symlinks unavailable: %v", err)
	}
}

// commitAll stages everything and commits it.
func (f *fixture) commitAll(msg string) {
	f.t.Helper()
	f.git("add", "-A")
	f.git("commit", "-q", "--allow-empty", "-m", msg)
}

// take snapshots the fixture.
func (f *fixture) take() Snapshot {
	f.t.Helper()
	s, err := Take(context.Background(), f.dir)
	if err != nil {
		f.t.Fatalf("Take: %v", err)
	}
	return s
}

// changed compares two snapshots of the fixture.
func (f *fixture) changed(before, after Snapshot) []string {
	f.t.Helper()
	got, err := Changed(context.Background(), f.dir, before, after)
	if err != nil {
		f.t.Fatalf("Changed: %v", err)
	}
	return got
}

// rotation runs agent between two snapshots and returns the later snapshot
// and the files that changed.
func (f *fixture) rotation(before Snapshot, agent func(*fixture)) (Snapshot, []string) {
	f.t.Helper()
	agent(f)
	after := f.take()
	return after, f.changed(before, after)
}

// wantChanged fails the test unless got lists exactly want.
func wantChanged(t testing.TB, got []string, want ...string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("changed = %q, want %q", got, want)
	}
}
