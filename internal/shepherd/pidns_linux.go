package shepherd

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// prSetDumpable is PR_SET_DUMPABLE from <linux/prctl.h>.
const prSetDumpable = 4

// reportMax bounds the report a first process writes before it exits: a
// pipe holds 64 KiB, and nobody reads it until the shepherd is gone.
const reportMax = 60 << 10

// firstProcess prepares a shepherd started as PID 1 of a PID namespace
// and a mount namespace of its own (InPIDNS): the report descriptor is
// kept from the command, a /proc of the namespace is mounted (the
// command sees only its namespace's processes, and the shepherd lists
// them), and the shepherd becomes non-dumpable, so that no process of
// the command (the same user) can trace it, read its descriptors or
// write its report. A shepherd that is not root there (a user namespace
// mapping only ralph-ci's own uid, where CAP_SYS_ADMIN came to it as an
// ambient capability for the mount) then drops every capability of the
// thread that starts the command: the command gets none. idmap is
// InPIDNS's.
func firstProcess(idmap string) (*os.File, error) {
	if os.Getpid() != 1 {
		return nil, errors.New("it is not PID 1: it has no PID namespace of its own")
	}
	if err := mapIDs(idmap); err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(ReportFD, &st); err != nil {
		return nil, errors.New("no report descriptor: " + err.Error())
	}
	syscall.CloseOnExec(ReportFD)
	report := os.NewFile(ReportFD, "report")
	if err := ownProc(); err != nil {
		return nil, err
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return nil, errors.New("cannot become non-dumpable: " + errno.Error())
	}
	if err := defaultFatal(); err != nil {
		return nil, errors.New("cannot give up Go's handlers of fatal signals: " + err.Error())
	}
	if os.Geteuid() != 0 {
		runtime.LockOSThread() // the command is forked from this thread
		if err := dropCaps(); err != nil {
			return nil, errors.New("cannot drop its capabilities: " + err.Error())
		}
	}
	return report, nil
}

// fatalSignals are the signals Go's runtime ends its process for when
// another process sends them (kill, or sigqueue, which it takes for a
// fault of its own): a process of the command, the shepherd's own user,
// could end the box's first process with one before it names what it
// killed (TestPIDNSBoxShepherdDiesOfASignal, cmd/ralph-ci/e2e/box).
var fatalSignals = []syscall.Signal{syscall.SIGQUIT, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGABRT, syscall.SIGBUS,
	syscall.SIGFPE, syscall.SIGSEGV, syscall.SIGSTKFLT, syscall.SIGSYS}

// defaultFatal gives fatalSignals back their default action, in place
// of Go's handlers: the kernel delivers no signal whose action is the
// default to the first process of a PID namespace from inside it, so the
// command can no longer end the shepherd early (a fault of the
// shepherd's own still ends it, without Go's trace). Go's runtime
// installs no handler again for a signal nobody asks it to notify.
func defaultFatal() error {
	var act [4]uintptr // a struct sigaction of SIG_DFL, no flags, an empty mask
	for _, sig := range fatalSignals {
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act[0])), 0, 8, 0, 0); errno != 0 {
			return errno
		}
	}
	return nil
}

// probe is the shepherd of ProbeArgs: can it be a namespace's first
// process here?
func probe(idmap string) int {
	if os.Getpid() != 1 {
		say(Name + ": it is not PID 1: it has no PID namespace of its own")
		return 127
	}
	err := mapIDs(idmap)
	if err == nil {
		err = ownProc()
	}
	if err != nil {
		say(Name + ": " + err.Error())
		return 127
	}
	return 0
}

// mapIDs maps, in the user namespace this shepherd was started in,
// its uid and gid (idmap "UID:GID", as they are outside) to themselves;
// "-" maps nothing (no user namespace of its own). The process itself
// writes the maps: its parent, ralph-ci, is not dumpable, so its
// children's /proc files (uid_map among them) are root's until they
// exec, and a non-root ralph-ci cannot write them; the kernel lets a
// process with CAP_SYS_ADMIN in the namespace (an ambient capability
// here) map its own ids alone.
func mapIDs(idmap string) error {
	if idmap == "-" {
		return nil
	}
	uid, gid, ok := bytes.Cut([]byte(idmap), []byte(":"))
	if !ok {
		return errors.New("bad id map " + idmap)
	}
	for _, w := range []struct{ file, data string }{
		{"/proc/self/setgroups", "deny"}, // before gid_map, for a process without CAP_SETGID outside
		{"/proc/self/uid_map", string(uid) + " " + string(uid) + " 1"},
		{"/proc/self/gid_map", string(gid) + " " + string(gid) + " 1"},
	} {
		if err := os.WriteFile(w.file, []byte(w.data), 0); err != nil {
			return errors.New("mapping its ids in its user namespace: " + err.Error())
		}
	}
	return nil
}

// ownProc mounts a /proc of this process's PID namespace over /proc, in
// its mount namespace, after making every mount a slave so that nothing
// propagates back to the mount namespace it came from.
func ownProc() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		return errors.New("making its mounts its own: " + err.Error())
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return errors.New("mounting a /proc of its PID namespace: " + err.Error())
	}
	return nil
}

// dropCaps empties the calling thread's permitted, effective and
// inheritable capability sets (and so its ambient set).
func dropCaps() error {
	hdr := struct {
		version uint32
		pid     int32
	}{0x20080522, 0} // _LINUX_CAPABILITY_VERSION_3, this thread
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return errno
	}
	return nil
}

// endNamespace ends the PID namespace whose first process this shepherd
// is, once the command's main process ended (ws) or the grace period
// after a SIGTERM ran out: it lists every process left (from the
// namespace's /proc), kills them all (kill -1 from PID 1 reaches every
// process of the namespace), lists again (those forked meanwhile, now
// dying), writes the list to report and returns the exit status (the
// leader's; 128+N for a leader killed by signal N, as PID 1 of a
// namespace cannot end by a signal of its own). When it exits, the
// kernel kills whatever is left (zap_pid_ns_processes) and reaps it
// before the shepherd's parent can see it exit.
func endNamespace(report *os.File, ws syscall.WaitStatus) int {
	var out []byte
	seen := map[int]bool{}
	note := func() {
		for _, pid := range procs.Descendants(os.Getpid()) {
			if !seen[pid] && len(out) < reportMax {
				seen[pid] = true
				out = append(append(append(out, strconv.Itoa(pid)...), ' '), comm(pid)...)
				out = append(out, '\n')
			}
		}
	}
	if hasChildren() {
		note()
		_ = syscall.Kill(-1, syscall.SIGKILL)
		note()
	}
	_, _ = report.Write(out)
	_ = report.Close()
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// comm is the command name of pid ("" once it is gone).
func comm(pid int) []byte {
	raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return bytes.TrimSpace(raw)
}
