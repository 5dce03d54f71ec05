package git

import (
	"io/fs"
	"syscall"
)

// stampOf is fi's stamp (macOS's stat names its times Mtimespec and
// Ctimespec, and its mode is 16 bits).
func stampOf(fi fs.FileInfo) stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}
	}
	return stamp{ino: st.Ino, size: uint64(st.Size), mode: uint32(st.Mode),
		mtime: st.Mtimespec.Sec*1e9 + st.Mtimespec.Nsec, ctime: st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec}
}
