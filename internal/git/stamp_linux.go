package git

import (
	"io/fs"
	"syscall"
)

// stampOf is fi's stamp (Linux's stat names its times Mtim and Ctim).
func stampOf(fi fs.FileInfo) stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}
	}
	return stamp{ino: st.Ino, size: uint64(st.Size), mode: st.Mode,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec, ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec}
}
