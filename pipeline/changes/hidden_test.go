package changes

import (
	"os"
	"path/filepath"
	"testing"
)

// Files git status does not show still count: a tracked file marked
// assume-unchanged or skip-worktree, and an untracked file ignored only by
// .git/info/exclude (outside the tree, where an agent may write unseen).
// Each changes in every rotation, so each rotation changed files.
func TestHiddenFromGitStatus(t *testing.T) {
	t.Parallel()
	type testCase struct {
		name  string
		setup func(f *fixture)
		file  string
	}
	run := func(t *testing.T, tc testCase) {
		f := initRepo(t)
		tc.setup(f)
		s := f.take()
		for i, content := range []string{"first\n", "second\n", "third\n"} {
			var got []string
			s, got = f.rotation(s, func(f *fixture) { f.write(tc.file, content) })
			wantChanged(t, got, tc.file)
			if t.Failed() {
				t.Fatalf("rotation %d", i+1)
			}
		}
		_, got := f.rotation(s, func(*fixture) {})
		wantChanged(t, got)
	}
	for _, tc := range []testCase{
		{name: "assume-unchanged", file: "a.txt", setup: func(f *fixture) { f.git("update-index", "--assume-unchanged", "a.txt") }},
		{name: "skip-worktree", file: "a.txt", setup: func(f *fixture) { f.git("update-index", "--skip-worktree", "a.txt") }},
		{name: "listed in .git/info/exclude", file: "notes.txt", setup: func(f *fixture) {
			f.write("notes.txt", "zero\n")
			if err := os.WriteFile(filepath.Join(f.dir, ".git", "info", "exclude"), []byte("# local\nnotes.txt\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// .gitignore files of the tree still decide: a file they ignore never
// counts.
func TestGitignoreStillIgnores(t *testing.T) {
	t.Parallel()
	f := initRepo(t)
	f.write(".gitignore", "build/\n")
	f.commitAll("ignore build")
	if err := os.WriteFile(filepath.Join(f.dir, ".git", "info", "exclude"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := f.take()
	_, got := f.rotation(s, func(f *fixture) { f.write("build/out.bin", "x") })
	wantChanged(t, got)
}
