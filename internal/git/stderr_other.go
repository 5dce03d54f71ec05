//go:build !linux

package git

import "os"

// stderrFile is nil: git's standard error is copied into a buffer.
func stderrFile() *os.File { return nil }
