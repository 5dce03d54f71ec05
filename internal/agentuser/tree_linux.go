package agentuser

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// chownTree gives every entry under the folder top (top included) to
// uid:gid, leaving those that have them already. It never follows a
// symbolic link and never leaves top's file system: every folder is
// opened below the one above it with O_NOFOLLOW, every entry changed
// relative to its folder, so a process that swaps a folder for a link
// while the walk runs moves nothing outside. A regular file of another
// owner with more than one link is left alone when lend is true (a hard
// link to a file outside, which the agent could otherwise get). It
// returns how many entries changed.
func chownTree(top string, uid, gid int, lend bool) (int, error) {
	return chownTreeSeen(top, uid, gid, lend, nil)
}

// seenDirs are the folders a walk of Lend's found holding only what it
// gave the user (or left alone), by device and inode, with their times
// then and their subfolders. A folder whose change and modification
// times are the ones recorded holds the same entries, each as the walk
// left it: an entry is made, renamed or linked into a folder only by
// changing the folder's times, which no process can set back (utimes
// sets the change time to the clock), and nothing gives an entry to
// another user but ralph-ci's own chown (Close, which forgets them). The
// next walk then visits only its subfolders: a rotation's start pays one
// open and one fstat per folder of the tree, not one fstatat per entry
// (BenchmarkLend).
type seenDirs map[dirKey]seenDir

type dirKey struct{ dev, ino uint64 }

type seenDir struct {
	ctime, mtime unix.Timespec
	subdirs      []string
}

// racyWindow: a folder changed this close to the walk's start may change
// again within the same tick of the clock that stamps it, unseen; it is
// read again next time.
const racyWindow = 50 * time.Millisecond

// now is the clock racyWindow is measured on (a test moves it).
var now = time.Now

// chownTreeSeen is chownTree, sparing the folders seen records and
// recording those it reads (seen nil: none).
func chownTreeSeen(top string, uid, gid int, lend bool, seen seenDirs) (int, error) {
	fd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", top, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	n := 0
	if int(st.Uid) != uid || int(st.Gid) != gid {
		if err := unix.Fchown(fd, uid, gid); err != nil {
			return 0, fmt.Errorf("chown %s: %w", top, err)
		}
		n++
	}
	w := walker{dev: st.Dev, uid: uid, gid: gid, lend: lend, seen: seen, since: now().Add(-racyWindow).UnixNano()}
	err = w.dir(fd, top, &st)
	return n + w.n, err
}

type walker struct {
	dev      uint64
	uid, gid int
	lend     bool
	n        int
	seen     seenDirs
	since    int64 // a folder changed after it (ns) is racy
}

// dir changes the entries of the open folder fd (named path, for errors),
// whose stat is st.
func (w *walker) dir(fd int, path string, st *unix.Stat_t) error {
	key := dirKey{dev: st.Dev, ino: st.Ino}
	if s, ok := w.seen[key]; ok && s.ctime == st.Ctim && s.mtime == st.Mtim {
		return w.into(fd, path, s.subdirs)
	}
	delete(w.seen, key)
	names, err := readNames(fd)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var subdirs []string
	var errs []error
	for _, name := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // gone meanwhile
		}
		if st.Dev != w.dev {
			continue // a mount point: another file system
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			subdirs = append(subdirs, name) // given and walked by into
			continue
		}
		owned := int(st.Uid) == w.uid && int(st.Gid) == w.gid
		linked := st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 && int(st.Uid) != w.uid
		if !owned && !(w.lend && linked) {
			if err := unix.Fchownat(fd, name, w.uid, w.gid, unix.AT_SYMLINK_NOFOLLOW); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, fmt.Errorf("chown %s/%s: %w", path, name, err))
			} else if err == nil {
				w.n++
			}
		}
	}
	if err := w.into(fd, path, subdirs); err != nil {
		errs = append(errs, err)
	}
	if w.seen != nil && len(errs) == 0 && st.Ctim.Nano() < w.since && st.Mtim.Nano() < w.since {
		w.seen[key] = seenDir{ctime: st.Ctim, mtime: st.Mtim, subdirs: subdirs}
	}
	return errors.Join(errs...)
}

// into gives each subfolder names of the open folder fd to the user when
// it is not its own, and walks it; one seen unchanged, with no subfolder
// of its own, is not even opened (a loose object's folder of .git/objects:
// one fstatat instead of an open, an fstat and a close).
func (w *walker) into(fd int, path string, names []string) error {
	var errs []error
	for _, name := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Dev != w.dev || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue // gone, a mount point, or swapped (its folder changed: read again next time)
		}
		if int(st.Uid) != w.uid || int(st.Gid) != w.gid {
			if err := unix.Fchownat(fd, name, w.uid, w.gid, unix.AT_SYMLINK_NOFOLLOW); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, fmt.Errorf("chown %s/%s: %w", path, name, err))
			} else if err == nil {
				w.n++
			}
		} else if s, ok := w.seen[dirKey{dev: st.Dev, ino: st.Ino}]; ok && s.ctime == st.Ctim && s.mtime == st.Mtim && len(s.subdirs) == 0 {
			continue
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // swapped for a link, or gone
		}
		if err := unix.Fstat(sub, &st); err == nil && st.Dev == w.dev {
			errs = append(errs, w.dir(sub, path+"/"+name, &st))
		}
		unix.Close(sub)
	}
	return errors.Join(errs...)
}

// readNames lists the entries of the open folder fd.
func readNames(fd int) ([]string, error) {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil, err
	}
	buf := make([]byte, 32<<10)
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return names, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// Snapshot records, once (the first call), the entries below dir (a
// folder of the work tree that ralph-ci writes as root: its .ralph/)
// that are neither regular files nor folders: they were there before any
// agent ran (a user's own link, such as a reports folder elsewhere), and
// Sweep keeps them. Call it before the first start.
func (r *Run) Snapshot(dir string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.before != nil {
		return
	}
	r.before = map[string]uint64{}
	for _, p := range oddEntries(dir) {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			r.before[p] = st.Ino
		}
	}
}

// Sweep removes, below dir (a folder of the work tree that ralph-ci
// writes as root: its .ralph/), dir itself included, every entry that is
// neither a regular file nor a folder (a symbolic link, a FIFO, a socket,
// a device) and was not there at the Snapshot, but for the agent's own
// files (names relative to dir that ralph-ci only reads, refusing
// anything but a small regular file, and removes: .ralph/status). The
// tree is lent to the agent's user, so without it the agent could plant a
// link where ralph-ci writes next (a rotation's log, the state's spare)
// and have root write through it (/etc/ld.so.preload, /etc/sudoers.d).
// Call it once every boxed process is gone (the box emptied); it returns
// what it removed.
func (r *Run) Sweep(dir string, agentFiles ...string) ([]string, error) {
	if r == nil {
		return nil, nil
	}
	r.mu.Lock()
	before := r.before
	r.mu.Unlock()
	var removed []string
	var errs []error
	for _, p := range oddEntries(dir) {
		rel, _ := filepath.Rel(dir, p)
		var st unix.Stat_t
		if slices.Contains(agentFiles, rel) || unix.Lstat(p, &st) != nil {
			continue
		}
		if ino, ok := before[p]; ok && ino == st.Ino {
			continue // there before any agent ran
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("sweeping %s: %w", dir, errors.Join(errs...))
	}
	return removed, nil
}

// oddEntries lists the entries below dir, dir included, that are neither
// regular files nor folders, never following a link.
func oddEntries(dir string) []string {
	var odd []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone, or unreadable: nothing below to list
		}
		if t := d.Type(); t != 0 && !t.IsDir() {
			odd = append(odd, p)
		}
		return nil
	})
	return odd
}
