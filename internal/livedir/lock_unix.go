//go:build unix

package livedir

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// makeHeld makes a folder named name + a random part in the temporary
// folder, held: made under another name, locked, then renamed over an
// empty folder of the name it gets (rename replaces an empty folder).
func makeHeld(name string) (string, *os.File, error) {
	pending, err := os.MkdirTemp("", ".pending-"+name)
	if err != nil {
		return "", nil, err
	}
	f, err := hold(pending)
	if err != nil {
		os.Remove(pending)
		return "", nil, err
	}
	named, err := os.MkdirTemp("", name)
	if err == nil {
		err = unix.Rename(pending, named) // os.Rename refuses a folder over a folder
	}
	if err != nil {
		f.Close()
		os.Remove(pending)
		return "", nil, err
	}
	return named, f, nil
}

// hold opens the folder p and takes a shared lock on it.
func hold(p string) (*os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if err := flock(f, unix.LOCK_SH); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Held tells whether a run holds the folder p (an exclusive lock cannot
// be had at once).
func Held(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true // cannot tell: leave it
	}
	defer f.Close()
	return flock(f, unix.LOCK_EX|unix.LOCK_NB) != nil
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
