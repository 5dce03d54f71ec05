package git

import "path/filepath"

// Resolved is dir, absolute and with its links resolved (as given when
// that fails): the form git prints a checkout's top in, so that a folder
// and git's name for it compare equal.
func Resolved(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}
