package changes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ready brings the watches up to date and reports whether the cached
// snapshot still holds, and if not why. When it does not, it has cleared
// the dirty flag, so that every event from here on dirties the snapshot
// the caller takes next.
func (w *Watcher) ready(ctx context.Context) (bool, string) {
	if w.closed {
		return false, "closed"
	}
	if !w.current() {
		w.restart(ctx)
		return false, "no current session (started anew)"
	}
	if err := w.barrier(ctx); err != nil {
		w.restart(ctx)
		return false, err.Error()
	}
	w.mu.Lock()
	dirty, by, stale, off := w.dirty, w.dirtyBy, w.stale, w.off
	w.dirty, w.dirtyBy = false, ""
	w.mu.Unlock()
	switch {
	case off != "":
		w.restart(ctx)
		return false, "fast path off: " + off
	case stale:
		w.restart(ctx)
		return false, "watches stale after " + by
	case dirty:
		return false, "event " + by
	case w.cached == nil:
		return false, "no snapshot yet"
	}
	return true, ""
}

// current reports whether the running session can be trusted: it is on, not
// stale, and the root and barrier directory are still the directories it
// watches (inotify watches inodes, not paths).
func (w *Watcher) current() bool {
	w.mu.Lock()
	ok := w.sess != nil && !w.stale && w.off == ""
	w.mu.Unlock()
	if !ok {
		return false
	}
	r, err1 := os.Stat(w.root)
	b, err2 := os.Stat(w.barrierDir)
	return err1 == nil && err2 == nil && os.SameFile(r, w.rootID) && os.SameFile(b, w.barrierID)
}

// restart drops the running session and, unless the fast path is off, starts
// a new one. It leaves the dirty flag clear: the caller takes a real snapshot
// next, after every watch is in place.
func (w *Watcher) restart(ctx context.Context) {
	_ = w.stop() // a failing close of a dropped session changes nothing here
	w.mu.Lock()
	w.stale, w.dirty = false, false
	w.touch("") // events between the sessions are lost
	off := w.off
	w.mu.Unlock()
	if off != "" {
		w.dropBarrier()
		return
	}
	resolved, err := filepath.EvalSymlinks(w.root)
	if err == nil {
		w.rootID, err = os.Stat(resolved)
	}
	if err == nil {
		err = w.newBarrier()
	}
	if err == nil {
		w.sess, err = startSession(ctx, w, resolved)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		w.markStale() // try again next time
	case err != nil:
		w.disable(err.Error())
		w.dropBarrier()
	}
	w.mu.Lock()
	w.dirty = false
	w.mu.Unlock()
}

// stop closes the running session, if any, and waits for its event loop.
func (w *Watcher) stop() error {
	if w.sess == nil {
		return nil
	}
	err := w.sess.close()
	w.sess = nil
	return err
}

// markStale dirties the snapshot and asks for a new session.
func (w *Watcher) markStale() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dirty, w.stale = true, true
	w.dirtyBy = cmp.Or(w.dirtyBy, "a session error")
	w.touch("")
	w.released()
}

// disable turns the fast path off for good, giving the reason.
func (w *Watcher) disable(reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.off == "" {
		w.off = reason
	}
	w.dirty = true
	w.touch("")
	w.released()
}

// clone returns a copy of s whose Files map the caller may change.
func (s Snapshot) clone() Snapshot {
	s.Files = maps.Clone(s.Files)
	return s
}

// within reports whether path p is dir or lies below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// barrier renames the barrier file to a new unique name and waits for the
// event of that name: inotify queues the events of one instance in the
// order of the system calls that cause them, so every event of an earlier
// change has then been handled. (On ext4 a rename costs a fraction of
// creating and removing a file.)
func (w *Watcher) barrier(ctx context.Context) error {
	name := w.barrierName()
	ch := make(chan struct{})
	w.mu.Lock()
	w.waitName, w.waitCh = name, ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.waitName, w.waitCh = "", nil
		w.mu.Unlock()
	}()
	if err := os.Rename(w.barrierAt, name); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	w.barrierAt = name
	t := time.NewTimer(w.timeout)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-t.C:
		return errors.New("barrier: no event in time")
	case <-ctx.Done():
		return fmt.Errorf("barrier: %w", ctx.Err())
	}
}

// newBarrier creates the barrier directory if needed and a new barrier file
// in it, removing the previous one.
func (w *Watcher) newBarrier() error {
	w.dropBarrier()
	if err := w.makeBarrierDir(); err != nil {
		return fmt.Errorf("barrier directory: %w", err)
	}
	fi, err := os.Stat(w.barrierDir)
	if err != nil {
		return fmt.Errorf("barrier directory: %w", err)
	}
	name := w.barrierName()
	f, err := w.createBarrier(name)
	if err != nil {
		return fmt.Errorf("barrier file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("barrier file: %w", err)
	}
	w.barrierID, w.barrierAt = fi, name
	return nil
}

// dropBarrier removes the barrier file, if any.
func (w *Watcher) dropBarrier() {
	if w.barrierAt != "" {
		_ = os.Remove(w.barrierAt) // gone already, or in a replaced directory
		w.barrierAt = ""
	}
}

// barrierName returns a new name for the barrier file, unique among the
// watchers of all processes sharing the directory.
func (w *Watcher) barrierName() string {
	w.seq++
	return filepath.Join(w.barrierDir, fmt.Sprintf("%s%d-%d-%d", barrierPrefix, os.Getpid(), w.id, w.seq))
}

// barrierPrefix starts the names of barrier entries.
const barrierPrefix = ".barrier-"

// released ends the wait of a barrier; w.mu must be held.
func (w *Watcher) released() {
	if w.waitCh != nil {
		close(w.waitCh)
		w.waitName, w.waitCh = "", nil
	}
}
