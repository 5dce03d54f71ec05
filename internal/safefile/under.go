package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrLink is the cause of an error for a path below a lent folder whose
// last part is a symbolic link: ralph-ci neither reads nor writes
// through one there.
var ErrLink = errors.New("a symbolic link, which ralph-ci does not follow here (the agent, which is lent this folder, can put one there)")

// ErrHardLink is the cause of an error for a file below a lent folder
// that has more than one name (OpenSoleUnder): a write into it would
// change the file of the other name, which may be anywhere on the same
// file system.
var ErrHardLink = errors.New("a file with another name too (a hard link), which ralph-ci does not write into here (the agent, which is lent this folder, can make one to a file elsewhere)")

// The functions below (OpenUnder, ReadUnder, MkdirUnder, RemoveUnder,
// ReplaceUnder) are how ralph-ci touches files of a folder it lends to
// the agent (the work tree's .ralph/): the agent may have replaced any
// file or folder of it by a link, to /etc/sudoers.d or ralph-ci's own
// git folder, or by a FIFO. Each opens root (refusing a root that is a
// link) with os.OpenRoot, so no link in a folder of path leads out of
// root, and opens path's last part without following a link (ErrLink)
// and without blocking on a FIFO. path is absolute or relative to the
// process, and must be below root.

// OpenUnder opens path, below root, with flag and perm as os.OpenFile
// does, but never through a symbolic link and never blocking on a FIFO
// (O_NONBLOCK is cleared once open). A path that is not a regular file
// once open is refused (ErrNotRegular).
func OpenUnder(root, path string, flag int, perm fs.FileMode) (*os.File, error) {
	return openUnder(root, path, flag, perm, false)
}

// OpenSoleUnder is OpenUnder for a file ralph-ci writes into in place:
// a file that has another name too (a hard link the agent made to a
// file elsewhere, which a write would change) is refused as well
// (ErrHardLink). Where the system does not tell how many names a file
// has (Windows), every file is refused.
func OpenSoleUnder(root, path string, flag int, perm fs.FileMode) (*os.File, error) {
	return openUnder(root, path, flag, perm, true)
}

// openUnder is OpenUnder, and OpenSoleUnder when sole is set.
func openUnder(root, path string, flag int, perm fs.FileMode, sole bool) (*os.File, error) {
	r, rel, err := openRoot(root, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := openNoFollow(r, rel, flag, perm)
	if err != nil {
		return nil, wrapLink(path, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%w (it is a %s, which the agent may have put there)", ErrNotRegular, kind(info.Mode()))
	}
	if err == nil && sole && !oneName(info) {
		err = ErrHardLink
	}
	if err == nil {
		err = clearNonBlock(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, nil
}

// ReadUnder is Read for a file below root: no link is followed on the
// way (ErrLink for a link as the file itself), no FIFO blocks it.
func ReadUnder(root, path string, limit int64) ([]byte, error) {
	f, err := OpenUnder(root, path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// ReadUnderOptional is ReadUnder for a file that may be missing: a
// missing file yields (nil, nil).
func ReadUnderOptional(root, path string, limit int64) ([]byte, error) {
	data, err := ReadUnder(root, path, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// MkdirUnder makes the folder path, below root, and its missing parents;
// a link on the way that leads out of root is refused.
func MkdirUnder(root, path string, perm fs.FileMode) error {
	r, rel, err := openRoot(root, path)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(rel, perm); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

// RemoveUnder removes the file path below root (a link is removed, not
// followed); a missing file is no error.
func RemoveUnder(root, path string) error {
	r, rel, err := openRoot(root, path)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// ReplaceUnder is Replace below root: the new file is made in path's
// folder (no link on the way leads out of root), synced, and renamed over
// path, which replaces a link planted there rather than writing through
// it.
func ReplaceUnder(root, path string, perm fs.FileMode, write func(io.Writer) error) error {
	r, rel, err := openRoot(root, path)
	if err != nil {
		return err
	}
	defer r.Close()
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+randomSuffix())
	f, err := openNoFollow(r, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = fill(f, perm, write); err == nil {
		err = r.Rename(tmp, rel)
	}
	if err != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// openRoot opens root, refusing a root that is itself a link, and
// returns path relative to it.
func openRoot(root, path string) (*os.Root, string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, "", fmt.Errorf("%s is not below %s", path, root)
	}
	if fi, err := os.Lstat(root); err != nil {
		return nil, "", err
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, "", fmt.Errorf("%s is %w", root, ErrLink)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, "", err
	}
	return r, rel, nil
}

// wrapLink names path in err, and says so when its last part is a link.
func wrapLink(path string, err error) error {
	if errors.Is(err, ErrLink) {
		return fmt.Errorf("%s is %w", path, ErrLink)
	}
	return fmt.Errorf("open %s: %w", path, err)
}

// LinkUnder makes path, below root, another name of the file target
// (a hard link, never following a link at target), replacing path
// atomically through tmp: a link the agent put at path is replaced, not
// followed.
func LinkUnder(root, target, tmp, path string) error {
	r, relPath, err := openRoot(root, path)
	if err != nil {
		return err
	}
	defer r.Close()
	relTarget, err1 := filepath.Rel(root, target)
	relTmp, err2 := filepath.Rel(root, tmp)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("link %s: %w", path, err)
	}
	_ = r.Remove(relTmp) // left by a crash between the two steps
	if err := r.Link(relTarget, relTmp); err != nil {
		return fmt.Errorf("link %s: %w", path, err)
	}
	if err := r.Rename(relTmp, relPath); err != nil {
		_ = r.Remove(relTmp)
		return fmt.Errorf("link %s: %w", path, err)
	}
	return nil
}
