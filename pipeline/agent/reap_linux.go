package agent

import (
	"sync"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

var subreaper sync.Once

// enableReaping marks this process as a child subreaper, once: processes
// orphaned by an agent (its leader exited first) are then re-parented to
// this process instead of PID 1, and reapGroup can reap them. Without it
// they stay zombies, and members of the agent's group, wherever PID 1 does
// not reap (containers without an init, or ralph-ci as PID 1). Failure is
// ignored: orphans are then PID 1's business.
func enableReaping() {
	subreaper.Do(func() {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// reapGroup reaps the exited children of this process that belong to
// process group pgid. It must not run before the group's leader was
// reaped by exec.Cmd.Wait, which it would otherwise steal.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
	}
}
