package shepherd

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
	"unsafe"

	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// Works: Linux has child subreapers and parent-death signals.
const Works = true

// PR_SET_CHILD_SUBREAPER and PR_SET_NO_NEW_PRIVS from <linux/prctl.h>.
const (
	prSetChildSubreaper = 36
	prSetNoNewPrivs     = 38
)

// Main runs the shepherd (args are os.Args[1:]) and returns its exit
// status: the command's, or 127 when it could not start. The command's
// path is the one ralph-ci resolved: the shepherd does not search PATH.
func Main(args []string) int {
	if len(args) == 2 && args[0] == probeFlag {
		return probe(args[1])
	}
	ns, idmap, args := cutPIDNS(args)
	ids, credOK, args := cutUser(args)
	var cred *syscall.Credential // the command's user, nil for the shepherd's
	if ids != nil {
		cred = &syscall.Credential{Uid: uint32(ids[0]), Gid: uint32(ids[1]), Groups: []uint32{}}
	}
	port, args := cutConnect(args)
	grace, write, argv, err := parseArgs(args)
	if err != nil || port < 0 || !credOK {
		say("usage: " + Name + " [-connect PORT] -grace DURATION [-write PATH]... -- COMMAND [ARG...]")
		return 2
	}
	var report *os.File // the first process of a PID namespace reports there
	if ns {
		var err error
		if report, err = firstProcess(idmap); err != nil {
			say(Name + ": cannot be the first process of a PID namespace: " + err.Error())
			return 127
		}
	}
	flags := unroot() // before Landlock, which forbids the mounts it makes
	if err := AllowWrites(write); err != nil {
		say(Name + ": cannot limit writes to " + write[0] + " and the rest: " + err.Error())
		return 127
	}
	if err := ConnectOnly(port); err != nil {
		say(Name + ": cannot limit the network to ralph-ci's proxy: " + err.Error())
		return 127
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		say(Name + ": cannot become a child subreaper: " + errno.Error())
		return 127
	}
	// no_new_privs: the command and everything it starts gain no privilege
	// by exec (sudo, setuid and file-capability binaries); no process can
	// clear it.
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		say(Name + ": cannot set no_new_privs: " + errno.Error())
		return 127
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	start := func(flags uintptr) (*os.Process, error) {
		return os.StartProcess(argv[0], argv, &os.ProcAttr{
			Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Cloneflags: flags, Credential: cred},
		})
	}
	p, err := start(flags)
	if errors.Is(err, syscall.EPERM) && flags != 0 { // root without CAP_SYS_ADMIN (a container): no cgroup namespace
		p, err = start(0)
	}
	if err != nil {
		say(Name + ": starting " + argv[0] + ": " + err.Error())
		return 127
	}
	os.Stdin.Close() // the command has its own
	return herd(p.Pid, grace, sigs, report)
}

// herd waits for the command's main process (leader) and the rest of
// the herd, as the package documentation describes, and returns the exit
// status. A shepherd that is the first process of a PID namespace
// (report not nil) waits for the leader alone: then it ends the
// namespace (endNamespace), whose kernel kills the rest.
func herd(leader int, grace time.Duration, sigs <-chan os.Signal, report *os.File) int {
	type exit struct {
		pid int
		ws  syscall.WaitStatus
	}
	exits := make(chan exit)
	go func() {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil { // ECHILD: no descendant is left
				close(exits)
				return
			}
			exits <- exit{pid, ws}
		}
	}()
	var (
		status   syscall.WaitStatus
		killAt   <-chan time.Time
		sweep    = time.NewTicker(10 * time.Millisecond)
		sweeping bool
	)
	defer sweep.Stop()
	for {
		select {
		case e, ok := <-exits:
			if !ok {
				if report != nil {
					return endNamespace(report, status)
				}
				return exitWith(status)
			}
			if e.pid == leader && report != nil {
				return endNamespace(report, e.ws)
			}
			if e.pid == leader {
				status = e.ws
				killDescendants(syscall.SIGKILL)
				sweeping = true
			}
		case <-sigs:
			killDescendants(syscall.SIGTERM)
			if killAt == nil {
				killAt = time.After(grace)
			}
		case <-killAt:
			if report != nil {
				return endNamespace(report, syscall.WaitStatus(syscall.SIGKILL))
			}
			sweeping = true
		case <-sweep.C:
			if sweeping {
				killDescendants(syscall.SIGKILL)
			}
		}
	}
}

// exitWith ends the shepherd as the leader ended: by the same signal, or
// with its exit status.
func exitWith(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		signal.Reset()
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		time.Sleep(time.Second) // the signal ends the process
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// killDescendants sends sig to every descendant of this process. A
// shepherd without children has no descendants (as a child subreaper it
// adopts every orphan below it), so the scan of /proc is left out then:
// that is the usual end of an agent or command that left nothing behind.
func killDescendants(sig syscall.Signal) {
	if !hasChildren() {
		return
	}
	for _, pid := range procs.Descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// hasChildren tells whether this process has a child, running or exited
// and not reaped yet, without reaping it (waitid with WNOWAIT; ECHILD
// means none).
func hasChildren() bool {
	const pAll, wNoWait = 0, 0x01000000 // P_ALL, WNOWAIT from <linux/wait.h>
	var info [128]byte                  // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOHANG|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return errno != syscall.ECHILD
		}
	}
}
