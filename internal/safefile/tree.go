package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrLeavesTree is the cause of an error for a path of the work tree
// that a symbolic link (of the file itself, or of a folder on its way)
// leads out of the tree: ralph-ci, which may be root, reads nothing
// there, since the agent, which is lent the tree, can put such a link
// at any file (to /etc/shadow, to ralph-ci's own git folder).
var ErrLeavesTree = errors.New("a symbolic link that leads out of the work tree, which ralph-ci does not follow (the agent, which is lent the tree, can put one there)")

// Tree reads the files of a work tree: a link that stays inside the
// tree is followed (as a checkout may hold one), one that leads out of
// it is refused (ErrLeavesTree), a FIFO or device never blocks
// (ErrNotRegular). One Tree serves many reads; Close it.
type Tree struct {
	root string
	r    *os.Root
}

// OpenTree opens the work tree at root (root itself may be a link: it
// is ralph-ci's, not the agent's, to name).
func OpenTree(root string) (*Tree, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open the work tree: %w", err)
	}
	return &Tree{root: root, r: r}, nil
}

// Close releases the tree's folder.
func (t *Tree) Close() error { return t.r.Close() }

// Open opens path (absolute, or relative to the process as root is),
// below the tree, for reading if it is a regular file. The caller
// closes the file and bounds what it reads.
func (t *Tree) Open(path string) (*os.File, fs.FileInfo, error) {
	rel, err := filepath.Rel(t.root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, nil, fmt.Errorf("read %s: it is not below the work tree %s", path, t.root)
	}
	f, err := t.r.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		if isEscape(err) {
			return nil, nil, fmt.Errorf("read %s: it is %w", path, ErrLeavesTree)
		}
		return nil, nil, fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%w (it is a %s); ralph-ci reads only regular files here", ErrNotRegular, kind(info.Mode()))
	}
	if err == nil {
		err = clearNonBlock(f)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return f, info, nil
}

// Read returns the content of the regular file at path below the tree,
// at most limit bytes, as the package's Read does, but through no link
// that leads out of the tree.
func (t *Tree) Read(path string, limit int64) ([]byte, error) {
	f, info, err := t.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	return readLimited(f, path, limit)
}

// Stat is os.Stat of path below the tree, through no link that leads
// out of it.
func (t *Tree) Stat(path string) (fs.FileInfo, error) {
	rel, err := filepath.Rel(t.root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("stat %s: it is not below the work tree %s", path, t.root)
	}
	fi, err := t.r.Stat(rel)
	if isEscape(err) {
		return nil, fmt.Errorf("stat %s: it is %w", path, ErrLeavesTree)
	}
	return fi, err
}

// ReadIn is Tree.Read for one file of the tree at root.
func ReadIn(root, path string, limit int64) ([]byte, error) {
	t, err := OpenTree(root)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return t.Read(path, limit)
}

// ReadInOptional is ReadIn for a file that may be missing: a missing
// file yields (nil, nil).
func ReadInOptional(root, path string, limit int64) ([]byte, error) {
	data, err := ReadIn(root, path, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// isEscape tells an error of os.Root for a path that a link (or "..")
// leads out of it: os.Root's own error is not exported, and its text is
// pinned by TestTreeRefusesALinkOut.
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// unwrapPath drops os.Root's *PathError, whose path is relative to the
// tree, so that the error names the caller's path once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadDir is os.ReadDir of the folder path below the tree, through no
// link that leads out of it.
func (t *Tree) ReadDir(path string) ([]fs.DirEntry, error) {
	rel, err := filepath.Rel(t.root, path)
	if err != nil || (rel != "." && !filepath.IsLocal(rel)) {
		return nil, fmt.Errorf("read %s: it is not below the work tree %s", path, t.root)
	}
	d, err := t.r.Open(rel)
	if err != nil {
		if isEscape(err) {
			return nil, fmt.Errorf("read %s: it is %w", path, ErrLeavesTree)
		}
		return nil, fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}
