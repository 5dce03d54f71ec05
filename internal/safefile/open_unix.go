//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading with O_NONBLOCK, so that opening
// a FIFO without a writer returns at once (fstat then refuses it).
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// nonBlock is O_NONBLOCK: opening a FIFO returns at once.
const nonBlock = syscall.O_NONBLOCK
