//go:build !unix

package git

import "errors"

// reuse writes no spare here: each pack is new files (see place).
func reuse(spare string, content []byte) error { return errors.New("no spares here") }
