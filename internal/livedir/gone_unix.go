//go:build unix

package livedir

import (
	"errors"
	"syscall"
)

// gone tells whether no process has the id pid: kill(pid, 0) fails with
// ESRCH. A process of another user's (EPERM) is there. On Linux it says
// what a look for /proc/PID said before, and it also answers on macOS,
// which has no /proc (where that look found every run gone, and a second
// run removed the first one's scratch folder under it).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
