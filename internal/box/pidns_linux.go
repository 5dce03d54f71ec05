package box

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// CAP_SYS_ADMIN and CAP_SETPCAP from <linux/capability.h>.
const (
	capSysAdmin = 21
	capSetpcap  = 8
)

// pidnsRun makes the PID-namespace boxes of a run: how each start gets
// a PID namespace of its own.
type pidnsRun struct {
	// userns: ralph-ci lacks CAP_SYS_ADMIN, so each box is made in a user
	// namespace of its own that maps only ralph-ci's uid and gid (to
	// themselves), where the kernel lets an unprivileged user make one.
	userns   bool
	uid, gid int
}

// openPIDNS finds whether the kernel gives a PID namespace here: it
// starts the shepherd exe once, as a box's first process would start
// (shepherd.ProbeArgs), and returns why not when it cannot be.
func openPIDNS(exe string) (*pidnsRun, error) {
	if exe == "" {
		return nil, errors.New("no shepherd (ralph-ci's own executable) to be a namespace's first process")
	}
	r := &pidnsRun{userns: !hasCap(capSysAdmin), uid: os.Geteuid(), gid: os.Getegid()}
	cmd := exec.Command(exe)
	cmd.Args = shepherd.ProbeArgs(r.idmap())
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	r.prepare(cmd.SysProcAttr)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return r, nil
	}
	msg := strings.TrimSpace(string(out))
	if msg == "" {
		msg = err.Error()
	}
	const sysAdmin = "(a container job's `options: --cap-add SYS_ADMIN --security-opt apparmor=unconfined` gives the PID namespace)"
	switch {
	case r.userns && os.Geteuid() == 0 && seccompFiltered():
		return nil, fmt.Errorf("ralph-ci is root without CAP_SYS_ADMIN, under a seccomp filter: a container's, as Docker makes one by default; "+
			"it then takes a user namespace, which the filter refused (%s) %s", msg, sysAdmin)
	case r.userns && os.Geteuid() == 0:
		// Root without CAP_SYS_ADMIN is a container's (seccomp=unconfined
		// alone): the kernel lets a user namespace mount a /proc only
		// where the one it has is fully visible, and Docker masks parts.
		return nil, fmt.Errorf("ralph-ci is root without CAP_SYS_ADMIN, as in a container; it then takes a user namespace, "+
			"which did not give a box (%s): a user namespace may mount a /proc of its own only where /proc has nothing masked, "+
			"and a container's has (Docker masks /proc/kcore, /proc/keys, ... unless --privileged) %s", msg, sysAdmin)
	case !r.userns && strings.Contains(msg, "mount") && strings.Contains(msg, syscall.EACCES.Error()):
		// EACCES, not EPERM: not a capability missing but a security
		// module's rule, as AppArmor's docker-default has for mount.
		return nil, fmt.Errorf("ralph-ci has CAP_SYS_ADMIN, but the shepherd may not mount in its namespace (%s): "+
			"a security module refuses mount, as AppArmor's docker-default profile of a container does "+
			"(a container job's `options: --security-opt apparmor=unconfined`, with --cap-add SYS_ADMIN, lets it)", msg)
	}
	if r.userns {
		return nil, fmt.Errorf("without CAP_SYS_ADMIN it takes a user namespace, which this kernel refused (%s): "+
			"unprivileged user namespaces are off (user.max_user_namespaces=0, kernel.unprivileged_userns_clone=0, "+
			"or AppArmor's kernel.apparmor_restrict_unprivileged_userns=1 keeping their capabilities), "+
			"or a seccomp filter refuses them (a container's, as Docker's default profile does)", msg)
	}
	return nil, fmt.Errorf("%s", msg)
}

// seccompFiltered tells whether this process runs under a seccomp
// filter ("Seccomp: 2" in /proc/self/status), as a container's
// processes do by default.
func seccompFiltered() bool { return statusField("Seccomp") == "2" }

// statusField is the value of field name in /proc/self/status, or "".
func statusField(name string) string {
	raw, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// hasCap tells whether this process has capability c in effect.
func hasCap(c uint) bool {
	n, err := strconv.ParseUint(statusField("CapEff"), 16, 64)
	return err == nil && n&(1<<c) != 0
}

// prepare makes attr start its process as the first of a new PID
// namespace, in a mount namespace of its own (where the shepherd mounts
// the namespace's /proc); in a new user namespace too when r.userns,
// where the shepherd gets CAP_SYS_ADMIN (for its maps and the mount) and
// CAP_SETPCAP (for unroot, when it is root) as ambient capabilities, and
// maps its ids itself (idmap): it drops them all before it starts the
// command.
func (r *pidnsRun) prepare(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	if r.userns {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.AmbientCaps = []uintptr{capSysAdmin, capSetpcap}
	}
}

// idmap is the shepherd's InPIDNS idmap: "UID:GID" in a user namespace.
func (r *pidnsRun) idmap() string {
	if !r.userns {
		return "-"
	}
	return strconv.Itoa(r.uid) + ":" + strconv.Itoa(r.gid)
}

// box makes the box of one start: the pipe its shepherd reports on.
func (r *pidnsRun) box() (*Box, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the box's report pipe: %w", err)
	}
	return &Box{ns: &nsBox{run: r, pidfd: -1, report: rd, w: wr}}, nil
}

// nsBox is the PID namespace of one start: its first process (a
// shepherd) is known by a pidfd, and reports on a pipe.
type nsBox struct {
	run       *pidnsRun
	pidfd     int
	report, w *os.File
}

// prepare makes cmd, a shepherd's start, the namespace's first process.
func (n *nsBox) prepare(cmd *exec.Cmd) error {
	if !shepherd.Is(cmd.Args) {
		return errors.New("a PID-namespace box starts a shepherd only")
	}
	if len(cmd.ExtraFiles) != 0 {
		return errors.New("a PID-namespace box needs descriptor 3 for its report")
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	n.run.prepare(cmd.SysProcAttr)
	cmd.SysProcAttr.PidFD = &n.pidfd
	cmd.ExtraFiles = []*os.File{n.w} // shepherd.ReportFD
	cmd.Args = shepherd.InPIDNS(cmd.Args, n.run.idmap())
	return nil
}

// empty kills the namespace's first process if it still runs (the
// kernel then kills the rest: zap_pid_ns_processes), waits until it has
// exited, which it does only once every other process of the namespace
// is gone and reaped, and returns what its report names.
func (n *nsBox) empty() ([]Proc, error) {
	_ = n.w.Close()
	defer n.report.Close()
	if n.pidfd < 0 { // never started
		return nil, nil
	}
	defer syscall.Close(n.pidfd)
	_ = unix.PidfdSendSignal(n.pidfd, unix.SIGKILL, nil, 0) // ESRCH once reaped
	if err := waitExit(n.pidfd, emptyWait); err != nil {
		return nil, err
	}
	_ = n.report.SetReadDeadline(time.Now().Add(emptyWait))
	raw, err := io.ReadAll(io.LimitReader(n.report, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the box's report: %w", err)
	}
	return parseReport(raw), nil
}

// waitExit waits until the process of pidfd has exited: a pidfd is
// readable once its process is a zombie or gone, which for the first
// process of a PID namespace is after the kernel emptied the namespace.
func waitExit(pidfd int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("the box's first process had not exited %s after SIGKILL", d)
		}
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting for the box's first process: %w", err)
		}
		if n > 0 {
			return nil
		}
	}
}

// parseReport reads a shepherd's report: "PID COMM" lines.
func parseReport(raw []byte) []Proc {
	var procs []Proc
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		pid, comm, _ := strings.Cut(sc.Text(), " ")
		if n, err := strconv.Atoi(pid); err == nil {
			procs = append(procs, Proc{PID: n, Comm: comm})
		}
	}
	return procs
}
