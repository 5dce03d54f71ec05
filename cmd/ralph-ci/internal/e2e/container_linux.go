//go:build linux

package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ralph-ci/ralph-ci/internal/box"
)

// Container is a container job's container, simulated without Docker
// (there is no Docker engine on the machines that run the tests).
// GitHub's runner makes the
// job's container (docker create ... tail -f /dev/null) and runs each
// step in it with docker exec: runc enters the container's namespaces
// and cgroup, and execs the step as root with the container's
// capabilities and seccomp filter. NewContainer does the same with the
// host's root file system (no image):
//
//   - its first process, PID 1 like the container's `tail`, in new mount,
//     PID, UTS, IPC and cgroup namespaces (unshare(1)), started in a
//     cgroup of its own below the test's, so that the cgroup namespace's
//     root is that cgroup, as Docker's cgroupns=private makes it;
//   - in its mount namespace (private), /proc mounted anew (nosuid, nodev,
//     noexec) with Docker's masked paths (/dev/null or an empty read-only
//     tmpfs over them) and read-only paths, the host's /sys read-only
//     (as runc binds it in the host's network namespace), and
//     /sys/fs/cgroup as a read-only cgroup2 mount of its namespace: what
//     Docker mounts without --privileged; with it, /sys and cgroup2
//     read-write and nothing masked;
//   - each Exec as docker exec starts a step: nsenter(1) into those
//     namespaces (its parent outside the PID namespace, as the shim's is),
//     started straight into the container's cgroup, as root; then the
//     capability bounding set cut to Docker's default (plus
//     CAP_SYS_ADMIN with --cap-add), no_new_privs left unset (Docker
//     sets it only with --security-opt no-new-privileges), and Docker's
//     default seccomp filter (dockerSeccomp, fitted to those
//     capabilities) unless unconfined, installed while CAP_SYS_ADMIN
//     is still held, as runc does without no_new_privs; the step's exec
//     then leaves root with exactly the bounding set.
//
// The network stays the host's: the runner's bridge network would reach
// the test's origin only through an address of the host, and no part of
// ralph-ci's boxes differs between the two (the network box it makes
// itself is a namespace of its own either way). /dev is the host's. No
// AppArmor profile is applied (this machine has no AppArmor; Docker's
// docker-default profile refuses mount, which is why the docs ask for
// apparmor=unconfined with CAP_SYS_ADMIN; ProfileSysAdminAppArmor has
// the seccomp filter refuse mount and umount2 with EACCES instead, the
// effect of that profile on ralph-ci).
type Container struct {
	Profile Profile
	cgroup  string // its cgroup, on the host
	cgfd    int    // that folder, open for CLONE_INTO_CGROUP
	pid     int    // its PID 1, on the host
	helper  string // a link named ralph-ci-container to the test binary
	init    *exec.Cmd
}

// Profile is what a container job's `options:` give the container.
type Profile string

// The profiles the docs name (docs/security.md, container jobs).
const (
	ProfileDefault    Profile = "default"    // no options: Docker's default
	ProfilePrivileged Profile = "privileged" // options: --privileged
	// options: --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined
	ProfileSysAdmin Profile = "sys-admin"
	// options: --cap-add SYS_ADMIN --security-opt apparmor=unconfined:
	// Docker's seccomp profile as it is for a container with CAP_SYS_ADMIN
	ProfileSysAdminSeccomp Profile = "sys-admin-seccomp"
	// options: --cap-add SYS_ADMIN (AppArmor's docker-default on, as
	// on an Ubuntu host: its mount denial done by the seccomp filter,
	// this machine having no AppArmor)
	ProfileSysAdminAppArmor Profile = "sys-admin-apparmor"
	// options: --security-opt seccomp=unconfined: Docker's default
	// capabilities, no seccomp filter
	ProfileSeccompUnconfined Profile = "seccomp-unconfined"
)

// seccomp tells whether the profile keeps Docker's seccomp filter.
func (p Profile) seccomp() bool {
	return p == ProfileDefault || p == ProfileSysAdminSeccomp || p == ProfileSysAdminAppArmor
}

// sysAdmin tells whether the profile adds CAP_SYS_ADMIN to Docker's
// default capabilities (--privileged gives every one).
func (p Profile) sysAdmin() bool {
	return p == ProfileSysAdmin || p == ProfileSysAdminSeccomp || p == ProfileSysAdminAppArmor
}

// dockerCaps is Docker's default capability set (moby's
// oci/caps.DefaultCapabilities).
var dockerCaps = []int{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FSETID, unix.CAP_FOWNER, unix.CAP_MKNOD,
	unix.CAP_NET_RAW, unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_SETFCAP, unix.CAP_SETPCAP,
	unix.CAP_NET_BIND_SERVICE, unix.CAP_SYS_CHROOT, unix.CAP_KILL, unix.CAP_AUDIT_WRITE,
}

// DockerCapMask is dockerCaps as /proc/PID/status shows a set.
func DockerCapMask() uint64 {
	var m uint64
	for _, c := range dockerCaps {
		m |= 1 << c
	}
	return m
}

// containerSeq names the test's containers.
var containerSeq atomic.Int64

// containerHelper is the name the test binary answers to as the
// container's PID 1 and as docker exec's last step (Main).
const containerHelper = "ralph-ci-container"

func init() { helperCommands[containerHelper] = containerMain }

// NewContainer starts a container of profile, stopped (its processes
// killed, its cgroup removed) when the test ends. It skips where it
// cannot be made: not root, no cgroup v2 of the test's to write, no
// unshare or nsenter.
func NewContainer(t *testing.T, profile Profile) *Container {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a simulated container needs root")
	}
	for _, tool := range []string{"unshare", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("a simulated container needs %s (util-linux): %v", tool, err)
		}
	}
	if profile.seccomp() {
		if _, err := dockerSeccomp(false, false); err != nil {
			t.Skip(err)
		}
	}
	own, err := box.OwnCgroup()
	if err != nil {
		t.Skipf("no cgroup v2 here: %v", err)
	}
	c := &Container{Profile: profile, cgfd: -1, helper: filepath.Join(t.TempDir(), containerHelper)}
	c.cgroup = filepath.Join(own, fmt.Sprintf("ralph-ci-ctr-%d-%d", os.Getpid(), containerSeq.Add(1)))
	if err := os.Mkdir(c.cgroup, 0o755); err != nil {
		t.Skipf("no cgroup of the test's to write: %v", err)
	}
	t.Cleanup(func() { c.stop(t) })
	if c.cgfd, err = syscall.Open(c.cgroup, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(RalphBinary(t), c.helper); err != nil {
		t.Fatal(err)
	}
	c.init = exec.Command("unshare", "--mount", "--pid", "--uts", "--ipc", "--cgroup", "--fork",
		"--kill-child=SIGKILL", "--propagation", "private", "--", c.helper, "init", string(profile))
	c.init.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: c.cgfd, Pdeathsig: syscall.SIGKILL}
	c.init.Stderr = os.Stderr
	out, err := c.init.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.init.Start(); err != nil {
		t.Fatalf("starting the container: %v", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the container did not start: %q %v", line, err)
	}
	if c.pid = childOf(c.init.Process.Pid); c.pid == 0 {
		t.Fatal("the container's first process is not to be found")
	}
	return c
}

// childOf is the first child of pid found in /proc, or 0.
func childOf(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		_, after, _ := strings.Cut(string(raw), ") ")
		if f := strings.Fields(after); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(e.Name())
			return n
		}
	}
	return 0
}

// Exec makes cmd, prepared as for the host (its path, arguments,
// environment, folder, streams), start in the container as docker exec
// would start it: as root, with the profile's capabilities and seccomp
// filter. Its exit status is the command's.
func (c *Container) Exec(cmd *exec.Cmd) {
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	args := []string{"nsenter", "--target", strconv.Itoa(c.pid), "--mount", "--pid", "--uts", "--ipc", "--cgroup", "--",
		c.helper, "exec", string(c.Profile), dir, cmd.Path}
	cmd.Args = append(args, cmd.Args...)
	cmd.Path, _ = exec.LookPath("nsenter")
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, c.cgfd
}

// Helper is a command of the container's helper (the test binary):
// "syscalls" says how clone3 and keyctl fare (for Exec).
func (c *Container) Helper(args ...string) *exec.Cmd { return exec.Command(c.helper, args...) }

// Cgroup is the container's cgroup folder on the host.
func (c *Container) Cgroup() string { return c.cgroup }

// stop kills the container's processes (its PID 1, and so its PID
// namespace: their mounts go with its mount namespace) and removes its
// cgroup; it fails the test if a process was left in it or it stays.
func (c *Container) stop(t *testing.T) {
	if c.init != nil && c.init.Process != nil {
		if c.pid != 0 {
			_ = syscall.Kill(c.pid, syscall.SIGKILL)
		}
		_ = c.init.Process.Kill()
		_ = c.init.Wait()
	}
	if c.cgfd >= 0 {
		_ = syscall.Close(c.cgfd)
	}
	killed, err := box.Remove(c.cgroup)
	if err != nil {
		t.Errorf("removing the container's cgroup: %v", err)
	}
	for _, p := range killed {
		if p.PID != c.pid { // its PID 1, killed above, may not be reaped yet
			t.Errorf("the container's cgroup still held %s when it stopped", p)
		}
	}
	if _, err := os.Stat(c.cgroup); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the container's cgroup %s is left", c.cgroup)
	}
}
