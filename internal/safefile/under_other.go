//go:build !unix

package safefile

import (
	"io/fs"
	"os"
	"strconv"
	"time"
)

// openNoFollow opens rel below r, refusing a link as its last part
// (checked just before: systems without openat's O_NOFOLLOW have no
// agent of another user here either).
func openNoFollow(r *os.Root, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := r.Lstat(rel); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, ErrLink
	}
	return r.OpenFile(rel, flag, perm)
}

func clearNonBlock(*os.File) error { return nil }

func randomSuffix() string {
	return strconv.FormatInt(time.Now().UnixNano(), 36) + strconv.Itoa(os.Getpid())
}

// oneName: this system does not tell how many names a file has, so no
// file is taken for one of a single name.
func oneName(fs.FileInfo) bool { return false }
