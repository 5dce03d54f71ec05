//go:build linux

package e2e

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The simulated container's inside (see Container): the test binary run
// as containerHelper, as the container's PID 1 and as the last step of
// docker exec.

// Docker's masked and read-only paths of a container that is not
// privileged (moby's oci.DefaultSpec).
var (
	maskedPaths = []string{"/proc/asound", "/proc/acpi", "/proc/interrupts", "/proc/kcore", "/proc/keys",
		"/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
		"/sys/firmware", "/sys/devices/virtual/powercap"}
	readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)

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
