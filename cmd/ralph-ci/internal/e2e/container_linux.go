//go:build linux

package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ralph-ci/ralph-ci/internal/box"
)

// A container job simulated without Docker. GitHub's runner makes the
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

// Docker's masked and read-only paths of a container that is not
// privileged (moby's oci.DefaultSpec).
var (
	maskedPaths = []string{"/proc/asound", "/proc/acpi", "/proc/interrupts", "/proc/kcore", "/proc/keys",
		"/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
		"/sys/firmware", "/sys/devices/virtual/powercap"}
	readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)

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

// containerMain is the test binary run as containerHelper: "init
// PROFILE" as the container's PID 1, "exec PROFILE DIR PATH ARGV..." as
// the last step of docker exec.
func containerMain() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "init":
		err = containerInit(Profile(os.Args[2]))
	case len(os.Args) >= 6 && os.Args[1] == "exec":
		err = containerExec(Profile(os.Args[2]), os.Args[3], os.Args[4], os.Args[5:])
	case len(os.Args) == 2 && os.Args[1] == "syscalls":
		// clone3 with no arguments: EINVAL where it is allowed, ENOSYS
		// where Docker's seccomp profile refuses it. keyctl, which the
		// profile always refuses: the session keyring's id, or EPERM.
		_, _, errno := unix.Syscall(unix.SYS_CLONE3, 0, 0, 0)
		fmt.Printf("clone3: %s\n", unix.ErrnoName(errno))
		_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 1, 0, 0)
		fmt.Printf("keyctl: %v\n", err)
		os.Exit(0)
	default:
		err = errors.New("usage: ralph-ci-container init PROFILE | exec PROFILE DIR PATH ARGV... | syscalls")
	}
	fmt.Fprintf(os.Stderr, "ralph-ci-container: %v\n", err)
	os.Exit(125) // docker's own failure
}

// containerInit mounts what Docker mounts, says "ready" and waits to be
// killed (as PID 1 of its namespace it ignores every other signal).
func containerInit(p Profile) error {
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	ro := uintptr(unix.MS_RDONLY)
	if p == ProfilePrivileged {
		ro = 0
	}
	if err := unix.Mount("proc", "/proc", "proc", flags, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	// The host's cgroup mounts under it go: the container sees one
	// cgroup2 mount, its namespace's.
	if err := unix.Unmount("/sys/fs/cgroup", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("unmounting the host's /sys/fs/cgroup: %w", err)
	}
	if err := unix.Mount("cgroup", "/sys/fs/cgroup", "cgroup2", flags|ro, ""); err != nil {
		return fmt.Errorf("mounting cgroup2 on /sys/fs/cgroup: %w", err)
	}
	// In the host's network namespace, sysfs cannot be mounted anew
	// (its network folders are the namespace's): runc uses the host's,
	// as here, read-only unless privileged (a flag of this mount only).
	if err := unix.Mount("", "/sys", "", unix.MS_BIND|unix.MS_REMOUNT|flags|ro, ""); err != nil {
		return fmt.Errorf("remounting /sys: %w", err)
	}
	if p != ProfilePrivileged {
		for _, path := range maskedPaths {
			if err := mask(path); err != nil {
				return err
			}
		}
		for _, path := range readonlyPaths {
			if err := readonly(path); err != nil {
				return err
			}
		}
	}
	if err := unix.Sethostname([]byte("ralph-ci-container")); err != nil {
		return fmt.Errorf("naming the container: %w", err)
	}
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
	}
}

// mask hides path as Docker does: /dev/null over a file, an empty
// read-only tmpfs over a folder.
func mask(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		err = unix.Mount("tmpfs", path, "tmpfs", unix.MS_RDONLY, "")
	default:
		err = unix.Mount("/dev/null", path, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("masking %s: %w", path, err)
	}
	return nil
}

// readonly makes path a read-only bind mount of itself.
func readonly(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s: %w", path, err)
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", path, err)
	}
	return nil
}

// containerExec is docker exec's last step, in the container's
// namespaces and cgroup: it goes to dir, takes the profile's seccomp
// filter and capability bounding set, and execs path.
func containerExec(p Profile, dir, path string, argv []string) error {
	if err := os.Chdir(dir); err != nil {
		return err
	}
	runtime.LockOSThread() // the bounding set is the thread's: the one that execs
	if p.seccomp() {
		filter, err := dockerSeccomp(p.sysAdmin(), p == ProfileSysAdminAppArmor)
		if err != nil {
			return err
		}
		if err := installSeccomp(filter); err != nil {
			return err
		}
	}
	if p != ProfilePrivileged {
		keep := map[int]bool{}
		for _, c := range dockerCaps {
			keep[c] = true
		}
		keep[unix.CAP_SYS_ADMIN] = p.sysAdmin()
		for c := 0; c <= unix.CAP_LAST_CAP; c++ {
			if keep[c] {
				continue
			}
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("dropping capability %d: %w", c, err)
			}
		}
	}
	return syscall.Exec(path, argv, os.Environ())
}
