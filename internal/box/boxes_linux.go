package box

import (
	"errors"
	"fmt"
	"os/exec"
)

// Boxes makes the boxes of one run (one ralph-ci process).
type Boxes struct {
	kind Mode
	cg   *cgroupRun // the run's cgroup (kind Cgroup)
	ns   *pidnsRun  // how its PID namespaces are made (kind PIDNS)
}

// Open finds the box mode asks for: auto takes a cgroup, else a PID
// namespace. shepherd is the executable that starts as a shepherd
// (internal/shepherd), the first process of each PID namespace. Off
// gives a nil *Boxes (every method of which works: it boxes nothing).
// An error wraps [ErrNoBox] and says why each kind tried failed.
func Open(mode Mode, shepherd string) (*Boxes, error) {
	var why []error
	if mode == Auto || mode == Cgroup {
		cg, err := openCgroup()
		if err == nil {
			return &Boxes{kind: Cgroup, cg: cg}, nil
		}
		why = append(why, fmt.Errorf("cgroup: %w", err))
	}
	if mode == Auto || mode == PIDNS {
		ns, err := openPIDNS(shepherd)
		if err == nil {
			return &Boxes{kind: PIDNS, ns: ns}, nil
		}
		why = append(why, fmt.Errorf("PID namespace: %w", err))
	}
	if mode == Off {
		return nil, nil
	}
	if len(why) == 0 {
		return nil, fmt.Errorf("box mode %q: want one of auto, cgroup, pidns, off", mode)
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

// UserNS tells whether each PID namespace is made in a user namespace
// (ralph-ci has no CAP_SYS_ADMIN).
func (b *Boxes) UserNS() bool { return b != nil && b.ns != nil && b.ns.userns }

// Sudo tells whether ralph-ci delegated the boxes' cgroup to itself
// through passwordless sudo (its own was not writable).
func (b *Boxes) Sudo() bool { return b != nil && b.cg != nil && b.cg.deleg != nil }

// New makes the box of one start; a nil *Box (no box) for Off.
func (b *Boxes) New() (*Box, error) {
	switch b.Kind() {
	case Cgroup:
		return b.cg.box()
	case PIDNS:
		return b.ns.box()
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
	ns *nsBox
}

// Prepare makes cmd begin inside the box: in its cgroup, or, for a PID
// namespace, as the namespace's first process, which must be a
// shepherd (its arguments are changed to say so, and its descriptor 3
// is the box's).
func (x *Box) Prepare(cmd *exec.Cmd) error {
	switch {
	case x == nil:
	case x.cg != nil:
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, x.cg.fd
	case x.ns != nil:
		return x.ns.prepare(cmd)
	}
	return nil
}

// Empty kills every process left in the box, returns once the kernel
// says it is empty, and removes it. It returns the processes it killed.
// leader is the process started, which its caller reaps.
func (x *Box) Empty(leader int) ([]Proc, error) {
	switch {
	case x == nil:
		return nil, nil
	case x.ns != nil:
		return x.ns.empty()
	case x.cg != nil:
		return x.cg.empty(leader)
	}
	return nil, nil
}
