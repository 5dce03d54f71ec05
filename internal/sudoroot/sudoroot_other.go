//go:build !linux

package sudoroot

import (
	"errors"
	"os"
)

// Works: only Linux runs ralph-ci again as root through sudo.
const Works = false

// Path is "" here.
func Path() string { return "" }

// Probe fails here.
func Probe(string) error {
	return errors.New("ralph-ci runs itself as root through sudo on Linux only")
}

// Relaunch fails here.
func Relaunch(string, string, []string, Payload, *os.File, *os.File, *os.File) (int, error) {
	return 0, ErrNotStarted
}

// Receive is nil here.
func Receive() (*Payload, error) { return nil, nil }

// Missing is path here.
func Missing(path string) string { return path }

// GiveBack does nothing here.
func GiveBack(string, int, int) error { return nil }
