package changes

import (
	"context"
	"path/filepath"
)

// Subtree tells whether anything happened under one folder of the root
// since it was last asked, from the Watcher's events: the spec folders,
// which ralph-ci then does not list again between rotations while nothing
// happened there (bench/scale.sh, SECTION=rotation: at 10,000 specs the
// walk cost a rotation several times what it costs at one spec).
type Subtree struct {
	w     *Watcher
	path  string // absolute
	dirty bool   // guarded by w.mu
}

// Subtree starts following the folder rel of the root (relative to it;
// it need not exist). Its first Changed reports true.
func (w *Watcher) Subtree(rel string) *Subtree {
	s := &Subtree{w: w, path: filepath.Join(w.root, filepath.FromSlash(rel)), dirty: true}
	w.mu.Lock()
	w.subtrees = append(w.subtrees, s)
	w.mu.Unlock()
	return s
}

// Changed reports whether anything may have changed under the folder
// since the last call: an event there (or on a folder above it) other
// than an attribute's alone (a chmod, a chown, a time set), or any
// doubt (a folder inside .ralph, which the Watcher does not watch, the
// fast path off, a barrier lost, the watches started anew). It waits for
// the events of every earlier change first (a barrier).
func (s *Subtree) Changed(ctx context.Context) bool {
	w := s.w
	w.takeMu.Lock()
	defer w.takeMu.Unlock()
	if w.closed || within(s.path, filepath.Join(w.root, ralphDir)) || !w.current() {
		return true
	}
	if err := w.barrier(ctx); err != nil {
		w.markStale() // Take starts anew
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	dirty := s.dirty || w.stale || w.off != ""
	s.dirty = w.stale || w.off != ""
	return dirty
}

// touch marks the subtrees an event on name concerns: name inside one,
// or a folder above one (moved or removed with it); all of them with name
// "". w.mu must be held.
func (w *Watcher) touch(name string) {
	for _, s := range w.subtrees {
		if name == "" || within(name, s.path) || within(s.path, name) {
			s.dirty = true
		}
	}
}
