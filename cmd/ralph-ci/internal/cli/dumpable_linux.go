package cli

import "syscall"

// prSetDumpable is PR_SET_DUMPABLE from <linux/prctl.h>.
const prSetDumpable = 4

// makeNonDumpable makes /proc/PID/environ, fd, mem and maps of ralph-ci
// readable by root only: agents run as the same user. It ends at exec,
// so the processes ralph-ci starts are not affected.
func makeNonDumpable() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
}
