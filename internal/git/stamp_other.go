//go:build !linux && !darwin

package git

import "io/fs"

// stampOf is fi's stamp as far as a portable stat gives it: size, mode
// and change time, but no inode number nor status-change time (Windows's
// Lstat gives neither), so scan finds every entry racy and reads it all
// again, as it did before the stamps: correct, at the cost BenchmarkSweep
// measured without them.
func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: uint64(fi.Size()), mode: uint32(fi.Mode()), mtime: fi.ModTime().UnixNano()}
}
