//go:build linux

package changes

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// watcherOn starts a Watcher on the fixture, with its barrier directory in
// .ralph/watch as ralph-ci has it, and closes it when the test ends.
func watcherOn(f *fixture, opts ...WatchOption) *Watcher {
	f.t.Helper()
	w, err := NewWatcher(context.Background(), f.dir, filepath.Join(ralphDir, "watch"), opts...)
	if err != nil {
		f.t.Fatalf("NewWatcher: %v", err)
	}
	f.t.Cleanup(func() {
		if err := w.Close(); err != nil {
			f.t.Errorf("Close: %v", err)
		}
	})
	return w
}

// wtake takes a snapshot with w and one with plain Take, fails the test
// unless they are equal, and reports whether w had to take a real one.
func (f *fixture) wtake(w *Watcher) (s Snapshot, real bool) {
	f.t.Helper()
	n := w.fullTakes
	s, err := w.Take(context.Background())
	if err != nil {
		f.t.Fatalf("Watcher.Take: %v", err)
	}
	if plain := f.take(); !reflect.DeepEqual(s, plain) {
		f.t.Fatalf("Watcher.Take = %+v, plain Take = %+v", s, plain)
	}
	return s, w.fullTakes > n
}

// fastPathOn fails the test unless w's fast path is on.
func fastPathOn(t *testing.T, w *Watcher) {
	t.Helper()
	if on, why := w.FastPath(); !on {
		t.Fatalf("fast path off: %s", why)
	}
}

// TestWatcherRotation runs one rotation per kind of change under a Watcher
// and checks that each yields what plain Take and Changed yield, and that
// only a rotation with an event outside .ralph runs git.
func TestWatcherRotation(t *testing.T) {
	cases := []struct {
		name  string
		pre   func(f *fixture) // after the watcher started, before the baseline
		agent func(f *fixture)
		want  []string
		quiet bool // no git may run
	}{
		{name: "nothing", agent: func(*fixture) {}, quiet: true},
		{name: "writes inside .ralph", pre: func(f *fixture) { f.write(".ralph/state.json", "{}\n") },
			agent: func(f *fixture) {
				f.write(".ralph/state.json", `{"rotation":2}`)
				f.write(".ralph/logs/deep/r2.log", "log\n")
				f.remove(".ralph/logs")
			}, quiet: true},
		{name: "edit", agent: func(f *fixture) { f.write("a.txt", "one!\n") }, want: []string{"a.txt"}},
		{name: "create", agent: func(f *fixture) { f.write("new.txt", "n\n") }, want: []string{"new.txt"}},
		{name: "delete", agent: func(f *fixture) { f.remove("dir/c.txt") }, want: []string{"dir/c.txt"}},
		{name: "rename", agent: func(f *fixture) {
			if err := os.Rename(filepath.Join(f.dir, "a.txt"), filepath.Join(f.dir, "dir", "a2.txt")); err != nil {
				f.t.Fatal(err)
			}
		}, want: []string{"a.txt", "dir/a2.txt"}},
		{name: "chmod", agent: func(f *fixture) {
			if err := os.Chmod(filepath.Join(f.dir, "a.txt"), 0o755); err != nil {
				f.t.Fatal(err)
			}
		}},
		{name: "touch", agent: func(f *fixture) { f.touch("dir/c.txt") }},
		{name: "new subdirectory with a file", agent: func(f *fixture) { f.write("new/deep/n.txt", "n\n") },
			want: []string{"new/deep/n.txt"}},
		{name: "change in a directory made after the start", pre: func(f *fixture) {
			if err := os.MkdirAll(filepath.Join(f.dir, "later", "deep"), 0o755); err != nil {
				f.t.Fatal(err)
			}
		}, agent: func(f *fixture) { f.write("later/deep/x.txt", "x\n") }, want: []string{"later/deep/x.txt"}},
		{name: "edit in a tree made after the start", pre: func(f *fixture) { f.write("n/a/b/c/f.txt", "1\n") },
			agent: func(f *fixture) { f.write("n/a/b/c/f.txt", "2\n") }, want: []string{"n/a/b/c/f.txt"}},
		{name: "change in a renamed directory", pre: func(f *fixture) {
			if err := os.Rename(filepath.Join(f.dir, "dir"), filepath.Join(f.dir, "moved")); err != nil {
				f.t.Fatal(err)
			}
		}, agent: func(f *fixture) { f.write("moved/new.txt", "n\n") }, want: []string{"moved/new.txt"}},
		{name: "agent commits dirty content", pre: func(f *fixture) { f.write("a.txt", "dirty\n") },
			agent: func(f *fixture) { f.commitAll("agent") }},
		{name: "agent commits nothing new", agent: func(f *fixture) { f.git("commit", "-q", "--allow-empty", "-m", "empty") }},
		{name: "reset --hard", pre: func(f *fixture) {
			f.write("a.txt", "two\n")
			f.commitAll("second")
		}, agent: func(f *fixture) { f.git("reset", "-q", "--hard", "HEAD~1") }, want: []string{"a.txt"}},
		{name: "reset --soft", pre: func(f *fixture) {
			f.write("a.txt", "two\n")
			f.commitAll("second")
		}, agent: func(f *fixture) { f.git("reset", "-q", "--soft", "HEAD~1") }},
		{name: "branch moved by update-ref", pre: func(f *fixture) {
			f.write("a.txt", "two\n")
			f.commitAll("second")
		}, agent: func(f *fixture) { f.git("update-ref", "refs/heads/main", "HEAD~1") }},
		{name: "checkout -b", agent: func(f *fixture) { f.git("checkout", "-q", "-b", "feature/x") }},
		{name: "pack-refs", pre: func(f *fixture) { f.git("branch", "other") },
			agent: func(f *fixture) { f.git("pack-refs", "--all") }},
		// Only the tree's .gitignore files decide what is ignored: a file
		// listed in info/exclude still counts, and its edit is seen.
		{name: "info/exclude", pre: func(f *fixture) { f.write("u.txt", "u\n") },
			agent: func(f *fixture) {
				f.write(".git/info/exclude", "u.txt\n")
				f.write("u.txt", "u2\n")
			}, want: []string{"u.txt"}},
		{name: "ignored folder", agent: func(f *fixture) {
			f.write("build/out.bin", "x\n")
			f.write("dir/debug.log", "x\n")
		}},
		{name: "untracked nested repository commits", pre: func(f *fixture) {
			f.write("vendor/lib/l.txt", "l\n")
			runIn(f.t, filepath.Join(f.dir, "vendor", "lib"), "init", "-q", "-b", "main")
			runIn(f.t, filepath.Join(f.dir, "vendor", "lib"), "add", "-A")
			runIn(f.t, filepath.Join(f.dir, "vendor", "lib"), "commit", "-q", "-m", "lib")
		}, agent: func(f *fixture) {
			runIn(f.t, filepath.Join(f.dir, "vendor", "lib"), "commit", "-q", "--allow-empty", "-m", "more")
		}, want: []string{"vendor/lib"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := gitBase(t)
			w := watcherOn(f)
			fastPathOn(t, w)
			f.wtake(w)
			if tc.pre != nil {
				tc.pre(f)
				f.wtake(w)
			}
			before, real := f.wtake(w)
			if real {
				t.Fatal("a Take with nothing changed ran git")
			}
			f.take() // our own git status dirties nothing
			tc.agent(f)
			after, real := f.wtake(w)
			if real == tc.quiet {
				t.Errorf("real Take = %v, want %v", real, !tc.quiet)
			}
			wantChanged(t, f.changed(before, after), tc.want...)
			if _, real := f.wtake(w); real {
				t.Error("the Take after a real one ran git again")
			}
		})
	}
}

// gitBase is a repository holding a.txt, b.txt, dir/c.txt and a .gitignore
// for *.log and build/, all committed, with .ralph/ untracked.
func gitBase(t *testing.T) *fixture {
	f := newRepo(t)
	f.write("a.txt", "one\n")
	f.write("b.txt", "two\n")
	f.write("dir/c.txt", "three\n")
	f.write(".gitignore", "*.log\nbuild/\n")
	f.commitAll("init")
	return f
}

// TestWatcherTree covers a root outside git: edits, .ralphignore, and a
// repository created at the root or above it.
func TestWatcherTree(t *testing.T) {
	t.Parallel()
	f := newTree(t)
	f.write("a.txt", "one\n")
	f.write("src/b.go", "package b\n")
	f.write(".ralphignore", "*.log\n")
	w := watcherOn(f)
	fastPathOn(t, w)
	before, _ := f.wtake(w)
	if _, real := f.wtake(w); real {
		t.Fatal("a Take with nothing changed did a real one")
	}
	steps := []struct {
		agent func(f *fixture)
		want  []string
	}{
		{func(f *fixture) { f.write("src/b.go", "package b // edited\n") }, []string{"src/b.go"}},
		{func(f *fixture) { f.write("src/x.log", "ignored\n") }, nil},
		{func(f *fixture) { f.write(".ralphignore", "*.log\nsrc/\n") }, []string{".ralphignore", "src/b.go"}},
		{func(f *fixture) { f.write("deep/er/c.txt", "c\n") }, []string{"deep/er/c.txt"}},
		{func(f *fixture) { f.write("deep/er/c.txt", "c2\n") }, []string{"deep/er/c.txt"}},
		{func(f *fixture) { f.git("init", "-q") }, []string{"src/b.go", "src/x.log"}},
		{func(f *fixture) { f.write("a.txt", "two\n") }, []string{"a.txt"}},
	}
	for i, st := range steps {
		st.agent(f)
		after, real := f.wtake(w)
		if !real {
			t.Fatalf("step %d: no real Take", i)
		}
		wantChanged(t, f.changed(before, after), st.want...)
		before = after
	}
	if _, real := f.wtake(w); real {
		t.Error("the Take after a real one ran git again")
	}
	fastPathOn(t, w)
}

// TestWatcherTreeRepositoryAbove turns a root outside git into a
// subdirectory of a new repository: the Watcher sees the .git appear above
// it, and gives up its fast path for a layout it does not watch.
func TestWatcherTreeRepositoryAbove(t *testing.T) {
	t.Parallel()
	f := newTree(t)
	f.write("a.txt", "one\n")
	w := watcherOn(f)
	f.wtake(w)
	runIn(t, filepath.Dir(f.dir), "init", "-q")
	if s, real := f.wtake(w); !real || s.Kind != KindGit {
		t.Fatalf("after git init above: real = %v, kind = %s", real, s.Kind)
	}
	if on, why := w.FastPath(); on {
		t.Error("fast path still on below the top of a work tree")
	} else {
		t.Log(why)
	}
	f.write("a.txt", "two\n")
	f.wtake(w)
}

// TestWatcherRepositoryRemoved removes the repository at the root: the
// Watcher carries on over a tree outside git.
func TestWatcherRepositoryRemoved(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	w := watcherOn(f)
	f.wtake(w)
	f.remove(".git")
	if s, real := f.wtake(w); !real || s.Kind != KindTree {
		t.Fatalf("after removing .git: real = %v, kind = %s", real, s.Kind)
	}
	fastPathOn(t, w)
	if _, real := f.wtake(w); real {
		t.Error("the Take after a real one ran git again")
	}
	f.write("dir/c.txt", "changed\n")
	if _, real := f.wtake(w); !real {
		t.Error("an edit went unseen")
	}
}

// TestWatcherSymlinkedRoot watches a root named through a symbolic link.
func TestWatcherSymlinkedRoot(t *testing.T) {
	t.Parallel()
	real := gitBase(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real.dir, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	f := &fixture{t: t, dir: link}
	w := watcherOn(f)
	fastPathOn(t, w)
	f.wtake(w)
	if _, took := f.wtake(w); took {
		t.Fatal("a Take with nothing changed ran git")
	}
	f.write(".ralph/x", "x")
	if _, took := f.wtake(w); took {
		t.Fatal("a write in .ralph ran git")
	}
	f.write("dir/c.txt", "changed\n")
	if _, took := f.wtake(w); !took {
		t.Fatal("an edit went unseen")
	}
}

// TestWatcherBarrierFollowsNoLinkOut: the barrier folder in .ralph/,
// which the agent is lent, swapped for a link to a folder outside the
// tree: the watcher makes nothing there (it was os.MkdirAll and a create
// that followed the link).
func TestWatcherBarrierFollowsNoLinkOut(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(f.dir, ".ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.dir, ".ralph", "watch")); err != nil {
		t.Fatal(err)
	}
	w, err := NewWatcher(context.Background(), f.dir, filepath.Join(".ralph", "watch"))
	if err == nil {
		defer w.Close()
		_, _ = w.Take(context.Background())
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("the watcher wrote %s through the link .ralph/watch", entries[0].Name())
	}
	if err == nil || !strings.Contains(err.Error(), ".ralph/watch") {
		t.Errorf("NewWatcher = %v, want an error naming .ralph/watch", err)
	}
}
