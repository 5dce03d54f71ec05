//go:build !unix

package git

import (
	"errors"
	"os"
)

// canHold: there is no flock here, so a folder of a run that was killed
// stays until someone removes it, and sweepGone removes none.
const canHold = false

func hold(string) (*os.File, error) { return nil, errors.ErrUnsupported }
