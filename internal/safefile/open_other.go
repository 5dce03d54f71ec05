//go:build !unix

package safefile

import "os"

// openNonBlocking opens path for reading; systems without FIFOs in the
// file tree need no O_NONBLOCK.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}

// nonBlock is no flag here: no FIFO to block on.
const nonBlock = 0
