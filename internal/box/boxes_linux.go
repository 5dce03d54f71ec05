package box

import (
	"errors"
	"fmt"
	"syscall"
)

// Boxes makes the boxes of one run (one ralph-ci process).
type Boxes struct {
	kind Mode
	cg   *cgroupRun // the run's cgroup (kind Cgroup)
}

// Open finds the box mode asks for. Off gives a nil *Boxes (every
// method of which works: it boxes nothing). An error wraps [ErrNoBox]
// and says why each kind tried failed.
func Open(mode Mode) (*Boxes, error) {
	var why []error
	if mode == Auto || mode == Cgroup {
		cg, err := openCgroup()
		if err == nil {
			return &Boxes{kind: Cgroup, cg: cg}, nil
		}
		why = append(why, fmt.Errorf("cgroup: %w", err))
	}
	if mode == Off {
		return nil, nil
	}
	if len(why) == 0 {
		return nil, fmt.Errorf("box mode %q: want one of auto, cgroup, off", mode)
	}
	return nil, fmt.Errorf("%w (%w)", ErrNoBox, errors.Join(why...))
}

// Kind is the kind of box made: Cgroup, or Off for none.
func (b *Boxes) Kind() Mode {
	if b == nil {
		return Off
	}
	return b.kind
}

// Where says where the boxes are: the run's cgroup folder, or "".
func (b *Boxes) Where() string {
	if b == nil || b.cg == nil {
		return ""
	}
	return b.cg.dir
}

// Sudo tells whether ralph-ci delegated the boxes' cgroup to itself
// through passwordless sudo (its own was not writable).
func (b *Boxes) Sudo() bool { return b != nil && b.cg != nil && b.cg.deleg != nil }

// New makes the box of one start; a nil *Box (no box) for Off.
func (b *Boxes) New() (*Box, error) {
	if b.Kind() == Cgroup {
		return b.cg.box()
	}
	return nil, nil
}

// Close kills what is left in the run's boxes (nothing, unless ralph-ci
// failed to empty one) and removes them.
func (b *Boxes) Close() ([]Proc, error) {
	if b == nil || b.cg == nil {
		return nil, nil
	}
	return b.cg.close()
}

// Box is the box of one start.
type Box struct {
	cg *cgroupBox
}

// Prepare makes the process attr starts begin inside the box.
func (x *Box) Prepare(attr *syscall.SysProcAttr) {
	if x != nil && x.cg != nil {
		attr.UseCgroupFD, attr.CgroupFD = true, x.cg.fd
	}
}

// Empty kills every process left in the box, returns once the kernel
// says it is empty, and removes it. It returns the processes it killed.
// leader is the process started, which its caller reaps.
func (x *Box) Empty(leader int) ([]Proc, error) {
	if x == nil || x.cg == nil {
		return nil, nil
	}
	return x.cg.empty(leader)
}
