//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openNoFollow opens rel below r: its folder through r (no link leads
// out), its last part with openat(O_NOFOLLOW|O_NONBLOCK), so a link there
// fails with ErrLink and a FIFO does not block.
func openNoFollow(r *os.Root, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	dir, err := r.Open(filepath.Dir(rel))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	name := filepath.Base(rel)
	fd, err := unix.Openat(int(dir.Fd()), name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		switch {
		case errors.Is(err, unix.ELOOP):
			return nil, ErrLink
		case errors.Is(err, unix.ENXIO): // a FIFO or socket opened to write, with no reader
			return nil, fmt.Errorf("%w (a FIFO or socket, which the agent may have put there)", ErrNotRegular)
		}
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(r.Name(), rel)), nil
}

// clearNonBlock puts f back in blocking mode, as os.OpenFile leaves a
// regular file.
func clearNonBlock(f *os.File) error {
	return unix.SetNonblock(int(f.Fd()), false)
}

// randomSuffix names a temporary file; O_EXCL catches a clash.
func randomSuffix() string {
	return strconv.FormatInt(time.Now().UnixNano(), 36) + strconv.Itoa(os.Getpid())
}

// oneName tells whether the file of info has one name (one hard link).
func oneName(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
