//go:build unix

package git

import (
	"errors"
	"os"
	"syscall"
)

// canSpare: RemovePack keeps a pack's files for the next (see place).
const canSpare = true

// reuse writes content into the file spare, in place of what it held,
// when spare is a regular file of one link (not a link to follow, a FIFO
// to block on, nor a name of a file that has another: the pack folder is
// the agent's to change between rotations, and ralph-ci may be root). It
// is what a new file beside it would be after the write: content alone,
// mode 0600.
func reuse(spare string, content []byte) error {
	f, err := os.OpenFile(spare, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.Mode().IsRegular() || !ok || st.Nlink != 1 {
		_ = f.Close()
		_ = os.Remove(spare) // the name alone
		return errors.New("not a spare")
	}
	_, werr := f.WriteAt(content, 0)
	return errors.Join(werr, f.Truncate(int64(len(content))), f.Chmod(0o600), f.Close())
}
