//go:build linux

package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWatcherOverflow makes the inotify queue overflow for real, by holding
// the event loop while creating far more events than the queue holds: the
// Watcher starts a new session and takes a real snapshot.
func TestWatcherOverflow(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	w := watcherOn(f)
	f.wtake(w)
	old := w.sess
	w.mu.Lock()           // the event loop blocks on its first event
	for i := range 7000 { // create, modify, delete: 21,000 events > max_queued_events
		p := filepath.Join(f.dir, "dir", fmt.Sprintf("t%d", i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			w.mu.Unlock()
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			w.mu.Unlock()
			t.Fatal(err)
		}
	}
	w.mu.Unlock()
	f.write("dir/new/after.txt", "x\n")
	if _, real := f.wtake(w); !real {
		t.Fatal("no real Take after an overflow")
	}
	if w.sess == old {
		t.Error("the session survived an overflow")
	}
	fastPathOn(t, w)
	if _, real := f.wtake(w); real {
		t.Error("the Take after a real one ran git again")
	}
	f.write("dir/new/after.txt", "y\n") // watched by the new session
	if _, real := f.wtake(w); !real {
		t.Error("an edit after the overflow went unseen")
	}
}

// TestWatcherBarrierLost loses the barrier's watch: Take waits out the
// timeout, takes a real snapshot and starts a session that works again.
func TestWatcherBarrierLost(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	w := watcherOn(f)
	f.wtake(w)
	w.timeout = 50 * time.Millisecond
	if err := w.sess.(*session).fsn.Remove(w.barrierDir); err != nil {
		t.Fatal(err)
	}
	if _, real := f.wtake(w); !real {
		t.Fatal("no real Take after a lost barrier")
	}
	if _, real := f.wtake(w); real {
		t.Error("the Take after a real one ran git again")
	}
}

// TestWatcherBarrierReplaced replaces and then removes the barrier
// directory between Takes.
func TestWatcherBarrierReplaced(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	w := watcherOn(f)
	f.wtake(w)
	if err := os.Rename(w.barrierDir, w.barrierDir+".old"); err != nil {
		t.Fatal(err)
	}
	f.write(".ralph/watch/other", "x")
	if _, real := f.wtake(w); !real {
		t.Fatal("no real Take after the barrier directory was replaced")
	}
	f.remove(".ralph")
	if _, real := f.wtake(w); !real {
		t.Fatal("no real Take after the barrier directory was removed")
	}
	if _, real := f.wtake(w); real {
		t.Error("the Take after a real one ran git again")
	}
	fastPathOn(t, w)
}

// TestWatcherFastPathOff covers the layouts and settings that turn the fast
// path off: every Take is then a real one, and still right.
func TestWatcherFastPathOff(t *testing.T) {
	cases := []struct {
		name  string
		opts  []WatchOption
		root  func(f *fixture) string // the root to watch, default f.dir
		agent func(f *fixture)        // run after the first Take
		why   string
	}{
		{name: "configuration", opts: []WatchOption{WithFastPath(false)}, why: "configuration"},
		{name: "too many directories", opts: []WatchOption{WithMaxWatchedDirs(5)}, why: "more than 5"},
		{name: "too many directories later", opts: []WatchOption{WithMaxWatchedDirs(30)}, agent: func(f *fixture) {
			for i := range 30 {
				f.write(fmt.Sprintf("many/d%d/x.txt", i), "x\n")
			}
		}, why: "more than 30"},
		{name: "below the top", root: func(f *fixture) string { return filepath.Join(f.dir, "dir") }, why: "below the top"},
		{name: "linked worktree", root: func(f *fixture) string {
			wt := filepath.Join(t.TempDir(), "wt")
			f.git("worktree", "add", "-q", wt)
			return wt
		}, why: "linked worktree"},
		{name: "submodule-like .git file", agent: func(f *fixture) {
			f.write("sub/.git", "gitdir: ../.git\n") // found while starting anew
			f.write(".ralph/.git", "ignored\n")
		}, why: "submodule"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := gitBase(t)
			if tc.root != nil {
				f = &fixture{t: t, dir: tc.root(f)}
			}
			w := watcherOn(f, tc.opts...)
			f.wtake(w)
			if tc.agent != nil {
				tc.agent(f)
				f.wtake(w)
			}
			on, why := w.FastPath()
			if on || !strings.Contains(why, tc.why) {
				t.Fatalf("FastPath() = %v, %q; want off for %q", on, why, tc.why)
			}
			for range 2 {
				if _, real := f.wtake(w); !real {
					t.Fatal("a Take without the fast path used the cache")
				}
			}
			f.write("late.txt", "x\n")
			f.wtake(w)
		})
	}
}

// TestNewWatcherErrors rejects a barrier directory where its entries would
// count as changes, and a root that is no directory.
func TestNewWatcherErrors(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	ctx := context.Background()
	for _, c := range []struct{ root, barrier string }{
		{f.dir, "dir/watch"},
		{filepath.Join(f.dir, "dir"), f.dir},
		{filepath.Join(f.dir, "a.txt"), t.TempDir()},
		{filepath.Join(f.dir, "missing"), t.TempDir()},
	} {
		if w, err := NewWatcher(ctx, c.root, c.barrier); err == nil {
			_ = w.Close()
			t.Errorf("NewWatcher(%s, %s) = nil error", c.root, c.barrier)
		}
	}
}

// TestWatcherConcurrentTakes takes snapshots from several goroutines while
// files change, for the race detector.
func TestWatcherConcurrentTakes(t *testing.T) {
	t.Parallel()
	f := gitBase(t)
	w := watcherOn(f)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5 {
				f.write(fmt.Sprintf("g%d.txt", g), fmt.Sprint(i))
				if _, err := w.Take(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f.wtake(w)
}

// TestWatcherClose checks that Close releases the inotify instance and the
// event loop, and that Take still works afterwards. It is not parallel: it
// counts the process's inotify descriptors.
func TestWatcherClose(t *testing.T) {
	f := gitBase(t)
	before := inotifyFDs(t)
	w, err := NewWatcher(context.Background(), f.dir, ".ralph/watch")
	if err != nil {
		t.Fatal(err)
	}
	f.wtake(w)
	if got := inotifyFDs(t); got != before+1 {
		t.Fatalf("%d inotify descriptors while watching, want %d", got, before+1)
	}
	s := w.sess.(*session)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	<-s.done // the event loop has returned
	if got := inotifyFDs(t); got != before {
		t.Errorf("%d inotify descriptors after Close, want %d", got, before)
	}
	if left, _ := os.ReadDir(filepath.Join(f.dir, ".ralph", "watch")); len(left) > 0 {
		t.Errorf("Close left %s in the barrier directory", left[0].Name())
	}
	for range 2 {
		if _, real := f.wtake(w); !real {
			t.Error("a Take after Close used the cache")
		}
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestWatcherRunsNoGit counts the git processes started by a Watcher's
// Take when nothing changed, including after a plain Take (whose git status
// must not write the index): none. It is not parallel: it counts the
// package's git processes.
func TestWatcherRunsNoGit(t *testing.T) {
	f := gitBase(t)
	w := watcherOn(f)
	f.wtake(w)
	for range 3 {
		f.take()
		n := gitRuns.Load()
		if _, err := w.Take(context.Background()); err != nil {
			t.Fatal(err)
		}
		if ran := gitRuns.Load() - n; ran != 0 {
			t.Fatalf("Watcher.Take ran git %d times with nothing changed", ran)
		}
	}
	f.write("a.txt", "changed\n")
	n := gitRuns.Load()
	f.wtake(w)
	if gitRuns.Load() == n {
		t.Error("no git ran after a change: the counter counts nothing")
	}
}

// inotifyFDs counts the open inotify descriptors of this process.
func inotifyFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// TestWatcherIgnoresTheCallersGitEnv runs a Watcher with GIT_DIR and
// GIT_WORK_TREE naming another repository in the process's environment (a
// job under `git bisect run` or a hook): ralph-ci's git never reads them, so
// the fast path stays on and every Take is of the root's own repository.
func TestWatcherIgnoresTheCallersGitEnv(t *testing.T) {
	f := gitBase(t)
	other := gitBase(t)
	other.write("other.txt", "x\n")
	t.Setenv("GIT_DIR", filepath.Join(other.dir, ".git"))
	t.Setenv("GIT_WORK_TREE", other.dir)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other.dir, ".git", "index"))
	w := watcherOn(f)
	f.wtake(w)
	fastPathOn(t, w)
	f.write("a.txt", "changed\n")
	s, _ := f.wtake(w)
	if _, real := f.wtake(w); real {
		t.Error("a quiet Take ran git: the fast path is off")
	}
	fastPathOn(t, w)
	if got := fmt.Sprint(s); !strings.Contains(got, "a.txt") || strings.Contains(got, "other.txt") {
		t.Errorf("snapshot %s: want the root's a.txt and nothing of the other repository", got)
	}
}
