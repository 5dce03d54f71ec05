//go:build !unix

package git

import "errors"

// canSpare: RemovePack removes a pack's files here.
const canSpare = false

// reuse writes no spare here: each pack is new files (see place).
func reuse(spare string, content []byte) error { return errors.New("no spares here") }
