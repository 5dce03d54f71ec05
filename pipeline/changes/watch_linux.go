//go:build linux

package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// dirKind tells what a watched directory is, and so what its events mean.
type dirKind uint8

const (
	kindTree     dirKind = iota // a work-tree directory: everything below it is watched
	kindGitDir                  // a .git directory: its own entries only (HEAD, index…)
	kindRefs                    // .git/refs and everything below it
	kindGitMeta                 // .git/info or .git/reftable: its own entries only
	kindAncestor                // above a root outside git: only a new .git matters
	kindBarrier                 // the barrier directory
)

// session is one inotify instance watching a root, with its event loop.
type session struct {
	w     *Watcher
	fsn   *fsnotify.Watcher
	done  chan struct{} // closed when loop has returned
	root  string        // the root with symbolic links resolved
	ralph string        // root/.ralph, never watched
	git   bool          // the root is the top of a git work tree
	dirs  map[string]dirKind
}

// startSession learns the layout of the root, starts an inotify instance and
// watches every directory whose changes could change a snapshot. Any failure
// is returned: the caller turns the fast path off.
func startSession(ctx context.Context, w *Watcher, root string) (watchSession, error) {
	git, err := layout(ctx, w.root, root)
	if err != nil {
		return nil, err
	}
	fsn, err := fsnotify.NewWatcher() // unbuffered: events and errors arrive in order
	if err != nil {
		return nil, fmt.Errorf("start inotify: %w", err)
	}
	s := &session{w: w, fsn: fsn, done: make(chan struct{}), root: root,
		ralph: filepath.Join(root, ralphDir), git: git, dirs: map[string]dirKind{}}
	go s.loop()
	if err := s.watchAll(); err != nil {
		_ = s.close() // the setup error is the one that matters
		return nil, err
	}
	return s, nil
}

// close ends the inotify instance and waits for the event loop to return.
func (s *session) close() error {
	err := s.fsn.Close()
	<-s.done
	if err != nil {
		return fmt.Errorf("close inotify: %w", err)
	}
	return nil
}

// loop handles events and errors one at a time, in the order inotify queued
// them, until the instance is closed.
func (s *session) loop() {
	defer close(s.done)
	defer s.w.markStale() // no more events: nothing can be trusted
	for {
		select {
		case ev, ok := <-s.fsn.Events:
			if !ok {
				return
			}
			s.handle(ev)
		case _, ok := <-s.fsn.Errors:
			if !ok {
				return
			}
			// An overflow (ErrEventOverflow) lost events, maybe the creation
			// of directories still to watch; any other error may have too.
			s.w.markStale()
		}
	}
}

// handle records what one event means: the end of a barrier, nothing (in
// .ralph, in the barrier directory, or above a root outside git), or a dirty
// snapshot, and for a new directory, more watches.
func (s *session) handle(ev fsnotify.Event) {
	w := s.w
	name, parent := ev.Name, filepath.Dir(ev.Name)
	w.mu.Lock()
	kind, known := s.dirs[parent]
	switch {
	case known && kind == kindBarrier:
		if name == w.waitName && ev.Has(fsnotify.Create) {
			w.released()
		}
		w.mu.Unlock()
		return
	case within(name, s.ralph) || name == w.barrierDir: // Take checks the latter
		w.mu.Unlock()
		return
	case known && kind == kindAncestor && name != s.root:
		if filepath.Base(name) == ".git" { // a repository around the root
			w.dirty, w.stale = true, true
			w.noteDirty(ev)
			w.touch("")
		}
		w.mu.Unlock()
		return
	}
	w.dirty = true
	w.noteDirty(ev)
	if ev.Op != fsnotify.Chmod {
		// An attribute alone (IN_ATTRIB: a mode, an owner, a time, a
		// link count) names no entry anew and changes no content, which
		// is all a Subtree's reader (spec discovery) lists; Take still
		// counts it (git records the executable bit). ralph-ci's own
		// lending of the tree to the agent's user chowns every file it
		// made: at 10,000 specs that burst cost a walk of the specs.
		w.touch(name)
	}
	removed := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	_, watched := s.dirs[name]
	switch {
	case filepath.Base(name) == ".git" && (removed || ev.Has(fsnotify.Create)):
		w.stale = true // a repository appeared or went: learn the layout again
	case name == s.root:
		w.stale = w.stale || removed
	case watched && removed:
		// A moved directory keeps its watches under their old paths, and
		// fsnotify drops the one on the directory itself: start anew.
		w.stale = w.stale || ev.Has(fsnotify.Rename)
		delete(s.dirs, name)
	}
	stale := w.stale
	w.mu.Unlock()
	if known && kind == kindTree && ev.Has(fsnotify.Create) {
		// A file created in the tree as another name of one elsewhere.
		if info, err := os.Lstat(name); err == nil {
			if err := hardLinked(name, fs.FileInfoToDirEntry(info)); err != nil {
				w.disable(err.Error())
				return
			}
		}
	}
	if stale || !known || !ev.Has(fsnotify.Create) {
		return
	}
	if err := s.watchNew(name, kind); err != nil && !errors.Is(err, fsnotify.ErrClosed) {
		w.disable(err.Error())
	}
}

// watchNew watches the new entry name, if it is a directory to watch in a
// directory of the given kind.
func (s *session) watchNew(name string, parent dirKind) error {
	switch parent {
	case kindTree:
		if isDir(name) {
			return s.walkTree(name)
		}
	case kindGitDir:
		switch filepath.Base(name) {
		case "refs":
			return s.walkRefs(name)
		case "info", "reftable":
			return s.add(name, kindGitMeta)
		}
	case kindRefs:
		return s.walkRefs(name)
	}
	return nil
}

// noteDirty records the first event that dirtied the snapshot (for
// Watcher.lastWhy), formatting it only then; w.mu must be held.
func (w *Watcher) noteDirty(ev fsnotify.Event) {
	if w.dirtyBy == "" {
		w.dirtyBy = ev.String()
	}
}
