//go:build !linux

package box

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Boxes: only Linux has the boxes; elsewhere Open gives none, and refuses
// unless asked for Off.
type Boxes struct{}

// Open gives no box (nil) for Off, and an error wrapping ErrNoBox for any
// other mode.
func Open(mode Mode, _ string) (*Boxes, error) {
	if mode == Off {
		return nil, nil
	}
	return nil, fmt.Errorf("%w (the boxes are Linux's: %s has none)", ErrNoBox, runtime.GOOS)
}

// Kind is Off.
func (b *Boxes) Kind() Mode { return Off }

// Where is "".
func (b *Boxes) Where() string { return "" }

// UserNS is false.
func (b *Boxes) UserNS() bool { return false }

// Sudo is false.
func (b *Boxes) Sudo() bool { return false }

// New gives no box.
func (b *Boxes) New() (*Box, error) { return nil, nil }

// Close does nothing.
func (b *Boxes) Close() ([]Proc, error) { return nil, nil }

// Box is no box.
type Box struct{}

// Prepare does nothing.
func (x *Box) Prepare(*exec.Cmd) error { return nil }

// Empty does nothing.
func (x *Box) Empty(int) ([]Proc, error) { return nil, nil }

// RemoveStale does nothing.
func RemoveStale() {}
