//go:build unix

package agent

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// setGroup makes the agent the leader of a new process group, so that it
// and everything it starts can be signalled at once. It also makes sure
// orphaned agent processes can be reaped (see enableReaping).
// A shepherd gets SIGTERM, not SIGKILL, when ralph-ci dies, so that it
// stops the command's processes before it goes.
func setGroup(cmd *exec.Cmd, shepherded bool) {
	enableReaping()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr, shepherded)
}

// signalGroup sends SIGTERM, or SIGKILL if kill, to the agent's group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig) // ESRCH: nobody left
}

// groupAlive tells whether a process of the agent's group is left. It is
// only called once the leader was reaped: it then reaps the group's
// orphans re-parented to this process, which would otherwise stay zombies
// and members of the group. A group whose processes cannot be signalled
// (EPERM) is not waited for.
func groupAlive(cmd *exec.Cmd) bool {
	pgid := cmd.Process.Pid
	reapGroup(pgid)
	return syscall.Kill(-pgid, 0) == nil
}

// abortRead makes a blocked read of the output pipe return.
func abortRead(f *os.File) {
	if f.SetReadDeadline(time.Now()) != nil {
		f.Close()
	}
}

// signalName names the signal that ended the process, "" if none did.
func signalName(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return sigName(ws.Signal())
}

var sigNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ",
}

func sigName(s syscall.Signal) string {
	if n, ok := sigNames[s]; ok {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}
