package deliver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// world is origin holding pull request #7: main (README.md, app.txt) and
// its head branch feature (spec.md on top).
type world struct {
	*ghorigin.Origin
	t *testing.T
}

func newWorld(t *testing.T) *world {
	t.Helper()
	o := ghorigin.New(t, "main", "feature", 7, map[string]string{"README.md": "hello\n", "app.txt": "one\ntwo\nthree\n"},
		map[string]string{"spec.md": "the spec\n"})
	return &world{Origin: o, t: t}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return ghorigin.Git(t, dir, args...)
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	ghorigin.WriteFiles(t, dir, map[string]string{rel: content})
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// humanPush commits content to rel on branch as another person.
func (w *world) humanPush(branch, rel, content string) string {
	return w.Push(branch, map[string]string{rel: content}, "human change to "+rel)
}

// prTarget is the target of pull request #7.
var prTarget = Target{Branch: "feature", PR: 7, DefaultBranch: "main"}

// session prepares dir for target and returns a pr-mode session.
func (w *world) session(dir string, target Target) *Session {
	t := w.t
	t.Helper()
	g := Git{Dir: dir}
	if _, err := Prepare(context.Background(), g, target); err != nil {
		t.Fatal(err)
	}
	return &Session{Git: g, StateDir: filepath.Join(dir, ".ralph"), Target: target, Push: true, Reports: filepath.Join(dir, ".ralph", "reports")}
}

// started is a pull request job whose session has started.
func started(t *testing.T) (*world, string, *Session) {
	t.Helper()
	w := newWorld(t)
	dir := w.PRJob()
	s := w.session(dir, prTarget)
	if _, err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w, dir, s
}
