package state

import "golang.org/x/sys/unix"

// exchange atomically swaps the files at a and b (renameat2 with
// RENAME_EXCHANGE). It fails if either is missing or the file system
// cannot do it.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
