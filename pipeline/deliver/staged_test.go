package deliver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/changes"
)

// TestStagedChangesAreWhatDiffCachedLists: what a commit holds, learnt
// from the index before and after staging and what the change detection
// saw staged (stagedChanges), is what git diff --cached lists: for an
// edit, a deletion, a new file, a mode change, a link, work the agent
// staged itself (and then changed, or put back), a file only the agent's
// git rm --cached removed, an assume-unchanged file and a .ralph folder
// deeper in the tree. An entry added with intent to add leaves it to git.
func TestStagedChangesAreWhatDiffCachedLists(t *testing.T) {
	type testCase struct {
		name    string
		agent   func(t *testing.T, dir string)
		unknown bool // stagedChanges cannot tell: git diff --cached runs
	}
	run := func(t *testing.T, tc testCase) {
		w := newWorld(t)
		dir := w.PRJob()
		git(t, dir, "update-index", "--chmod=+x", "app.txt") // a mode at HEAD
		git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "modes")
		tc.agent(t, dir)
		ctx := context.Background()
		snap, err := changes.Take(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		r := Rotation{Head: snap.Head}
		staged, ok := snap.Staged()
		if !ok {
			t.Fatal("the snapshot does not know what was staged")
		}
		r.StagedKnown = true
		for _, c := range staged {
			r.Staged = append(r.Staged, Change{Path: c.Path, Mode: c.Mode, ID: c.ID})
		}
		r.Links, r.LinksKnown = snap.Gitlinks()
		g := Git{Dir: dir}
		before := indexBefore(g, r)
		if err := stage(ctx, g, r); err != nil {
			t.Fatal(err)
		}
		got, ok := stagedChanges(g, r, before)
		raw, err := g.Run(ctx, "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames")
		if err != nil {
			t.Fatal(err)
		}
		want, err := parseRaw(raw)
		if err != nil {
			t.Fatal(err)
		}
		if ok == tc.unknown {
			t.Fatalf("stagedChanges knew: %v, want %v", ok, !tc.unknown)
		}
		if ok && !slices.Equal(got, want) {
			t.Fatalf("stagedChanges:\n%q\ngit diff --cached:\n%q", got, want)
		}
	}
	for _, tc := range []testCase{
		{name: "nothing", agent: func(*testing.T, string) {}},
		{name: "edit, delete, add", agent: func(t *testing.T, dir string) {
			write(t, dir, "README.md", "changed\n")
			remove(t, dir, "spec.md")
			write(t, dir, "new/deep/file.txt", "new\n")
		}},
		{name: "mode and link", agent: func(t *testing.T, dir string) {
			chmod(t, dir, "app.txt", 0o644)
			chmod(t, dir, "README.md", 0o755)
			if err := os.Symlink("README.md", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "staged by the agent", agent: func(t *testing.T, dir string) {
			write(t, dir, "README.md", "staged\n")
			write(t, dir, "added.txt", "added\n")
			git(t, dir, "add", "README.md", "added.txt")
			write(t, dir, "README.md", "changed after staging\n")
		}},
		{name: "staged, then put back", agent: func(t *testing.T, dir string) {
			write(t, dir, "README.md", "staged\n")
			write(t, dir, "added.txt", "added\n")
			git(t, dir, "add", "README.md", "added.txt")
			write(t, dir, "README.md", "hello\n")
			remove(t, dir, "added.txt")
		}},
		{name: "removed from the index only", agent: func(t *testing.T, dir string) {
			git(t, dir, "rm", "-q", "--cached", "spec.md")
		}},
		{name: "assume-unchanged", agent: func(t *testing.T, dir string) {
			git(t, dir, "update-index", "--assume-unchanged", "README.md")
			write(t, dir, "README.md", "hidden change\n")
		}},
		{name: "a deeper .ralph", agent: func(t *testing.T, dir string) {
			write(t, dir, "sub/.ralph/notes.md", "never committed\n")
			write(t, dir, "sub/kept.txt", "kept\n")
		}},
		{name: "intent to add", unknown: true, agent: func(t *testing.T, dir string) {
			write(t, dir, "later.txt", "later\n")
			git(t, dir, "add", "-N", "later.txt")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func remove(t *testing.T, dir, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, rel)); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, dir, rel string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(dir, rel), mode); err != nil {
		t.Fatal(err)
	}
}
