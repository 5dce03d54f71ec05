//go:build unix

package safefile

import (
	"io/fs"
	"syscall"
)

// links is how many names the file of fi has (0 when unknown).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
