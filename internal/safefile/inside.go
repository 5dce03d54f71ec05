package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Inside reports an error unless path, once every symbolic link of its
// existing folders is resolved, stays inside root. It is for files
// ralph-ci writes at paths taken from the repository (a config's report
// paths): a folder committed as a link to somewhere else must not carry
// the write out of the repository. The file itself need not exist yet;
// a file that exists must not be a link either.
func Inside(root, path string) error {
	realRoot, err := resolve(root)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: ralph-ci does not write through one", path)
	}
	real, err := resolve(path)
	if err != nil {
		return err
	}
	if !within(realRoot, real) {
		return fmt.Errorf("%s leads outside the repository (to %s) through a symbolic link", path, real)
	}
	return nil
}

// resolve returns p with the links of its longest existing prefix
// resolved and the rest (folders not made yet) joined to it.
func resolve(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	dir, rest := p, ""
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", fmt.Errorf("resolve %s: %w", dir, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		dir, rest = parent, filepath.Join(filepath.Base(dir), rest)
	}
}

// within tells whether p is root or below it (both cleaned, absolute or
// both relative).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
