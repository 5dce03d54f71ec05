//go:build linux

package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// layout tells whether the root (abs, and resolved: with links resolved) is
// the top of a git work tree whose repository is root/.git, or a tree
// outside git. Any other layout (a root below the top, a .git file of a
// linked worktree or submodule) returns an error: its changes are not all
// in places a Watcher watches. GIT_DIR and the like in ralph-ci's own
// environment do not count: no GIT_* variable of it reaches the git that
// takes snapshots (internal/git), so the repository is root/.git whatever
// they say.
func layout(ctx context.Context, abs, resolved string) (git bool, err error) {
	dotGit := filepath.Join(resolved, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case err == nil && !fi.IsDir():
		return false, fmt.Errorf("%s is not a directory (a linked worktree or a submodule)", dotGit)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("layout of %s: %w", abs, err)
	}
	r, err := lookupRepo(ctx, abs)
	switch {
	case errors.Is(err, errNotRepo) && fi == nil:
		return false, nil
	case errors.Is(err, errNotRepo):
		return false, fmt.Errorf("%s is not a usable repository", dotGit)
	case err != nil:
		return false, fmt.Errorf("layout of %s: %w", abs, err)
	case r.prefix != "":
		return false, fmt.Errorf("%s is below the top of its work tree", abs)
	case fi == nil:
		return false, fmt.Errorf("the repository of %s is not in %s", abs, dotGit)
	}
	return true, nil
}

// watchAll watches the barrier directory, the ancestors of a root outside
// git (where a new repository would take the root in), and the tree.
func (s *session) watchAll() error {
	if err := s.add(s.w.barrierDir, kindBarrier); err != nil {
		return err
	}
	if !s.git {
		for p := filepath.Dir(s.root); ; p = filepath.Dir(p) {
			if err := s.add(p, kindAncestor); err != nil {
				return err
			}
			if p == filepath.Dir(p) {
				break
			}
		}
	}
	return s.walkTree(s.root)
}

// walkTree watches top and every directory below it but .ralph, and in a
// git work tree the .git directories found there. A directory is watched
// before it is read, so that an entry created meanwhile is either read or
// reported. A .git file (a submodule) in a git work tree is an error: its
// repository is elsewhere.
func (s *session) walkTree(top string) error {
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			return nil // removed meanwhile; its removal was an event
		case err != nil:
			return fmt.Errorf("watch %s: %w", p, err)
		case p == s.ralph:
			return filepath.SkipDir
		case d.Name() == ".git" && p != s.root:
			if !s.git { // outside git, .git folders never count
				return skipDir(d)
			}
			if !d.IsDir() {
				return fmt.Errorf("%s is not a directory (a submodule or linked worktree)", p)
			}
			if err := s.watchGitDir(p); err != nil {
				return err
			}
			return filepath.SkipDir
		case !d.IsDir():
			return hardLinked(p, d)
		}
		return s.add(p, kindTree)
	})
}

// skipDir skips what d is: the rest of a directory, or one entry.
func skipDir(d fs.DirEntry) error {
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// watchGitDir watches a .git directory for what moves HEAD or changes the
// index, the configuration or the excludes: its own entries (HEAD, index,
// packed-refs, config…), info/, reftable/ and everything in refs/. Objects
// and logs change only along with those.
func (s *session) watchGitDir(dir string) error {
	if err := s.add(dir, kindGitDir); err != nil {
		return err
	}
	for _, sub := range []string{"info", "reftable"} {
		if err := s.add(filepath.Join(dir, sub), kindGitMeta); err != nil {
			return err
		}
	}
	return s.walkRefs(filepath.Join(dir, "refs"))
}

// walkRefs watches top and every directory below it.
func (s *session) walkRefs(top string) error {
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return fmt.Errorf("watch %s: %w", p, err)
		case !d.IsDir():
			return nil
		}
		return s.add(p, kindRefs)
	})
}

// add watches the directory dir, unless it is watched already. A directory
// that is gone (or no directory) is no error; past the maximum number of
// directories, or when the system refuses a watch, the fast path is off.
func (s *session) add(dir string, kind dirKind) error {
	w := s.w
	w.mu.Lock()
	_, seen := s.dirs[dir]
	if !seen {
		s.dirs[dir] = kind
	}
	n := len(s.dirs)
	w.mu.Unlock()
	switch {
	case seen:
		return nil
	case n > w.maxDirs:
		return fmt.Errorf("more than %d directories to watch", w.maxDirs)
	}
	err := s.fsn.Add(dir)
	if err == nil {
		return nil
	}
	w.mu.Lock()
	if s.dirs[dir] == kind {
		delete(s.dirs, dir)
	}
	w.mu.Unlock()
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	case errors.Is(err, fsnotify.ErrClosed):
		return err
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("watch %s: %w (raise fs.inotify.max_user_watches)", dir, err)
	}
	return fmt.Errorf("watch %s: %w", dir, err)
}

// isDir reports whether p is a directory, not following a final link.
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// hardLinked fails for a regular file with more than one name: a write
// through a name outside the watched directories makes no event here, so
// the fast path cannot be trusted with it.
func hardLinked(p string, d fs.DirEntry) error {
	if !d.Type().IsRegular() {
		return nil
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err == nil && st.Nlink > 1 {
		return fmt.Errorf("%s has %d hard links: a write through another of its names makes no event", p, st.Nlink)
	}
	return nil
}
