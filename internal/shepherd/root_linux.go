package shepherd

import (
	"bytes"
	"os"
	"runtime"
	"syscall"
)

// prCapbsetDrop is PR_CAPBSET_DROP from <linux/prctl.h>.
const prCapbsetDrop = 24

// unroot is what a shepherd started as root (ralph-ci run as root: a
// container, a runner's sudo) does before it starts the command, so that
// root in the box is an ordinary user there:
//
//   - every capability leaves the bounding set, so the command, which
//     execs as uid 0, gets none (and no_new_privs keeps it so): without
//     CAP_SYS_PTRACE it cannot read ralph-ci's memory or environment
//     (ralph-ci is not dumpable), without CAP_SYS_ADMIN it cannot mount,
//     make namespaces of another kind or enter another cgroup namespace;
//   - the command starts in a mount namespace of its own where every
//     cgroup file system is read-only, and a cgroup namespace rooted at
//     the box (the shepherd's cgroup; where cgroup2 is mounted with
//     nsdelegate, as systemd mounts it, the kernel then refuses a move out
//     of it too): root cannot leave the box by writing a cgroup.procs file,
//     which it owns, nor remount or mount another (no CAP_SYS_ADMIN).
//
// The bounding set is the thread's, and the command is forked from this
// one (locked). It returns the clone flags of the command's start; a
// shepherd that is not root changes nothing (its user's processes cannot
// leave a cgroup they cannot write).
func unroot() uintptr {
	if os.Geteuid() != 0 {
		return 0
	}
	runtime.LockOSThread()
	flags := uintptr(syscall.CLONE_NEWCGROUP)
	if readOnlyCgroups() == nil {
		flags = 0 // the mount namespace is this thread's already: the command inherits it
	}
	for c := 0; c < 64; c++ {
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0); errno == syscall.EINVAL {
			break // past the last capability the kernel knows
		}
	}
	return flags
}

// readOnlyCgroups moves this thread into a mount namespace of its own
// (receiving the others' mounts still) where every cgroup and cgroup2
// mount of /proc/self/mountinfo is read-only. On an error, the thread may
// be in the new namespace with some cgroup mounts left writable.
func readOnlyCgroups() error {
	if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
		return err
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		return err
	}
	raw, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		pre, post, ok := bytes.Cut(line, []byte(" - "))
		fields, kind := bytes.Fields(pre), bytes.Fields(post)
		if !ok || len(fields) < 6 || len(kind) == 0 || (string(kind[0]) != "cgroup2" && string(kind[0]) != "cgroup") {
			continue
		}
		flags := uintptr(syscall.MS_REMOUNT | syscall.MS_BIND | syscall.MS_RDONLY)
		for _, o := range bytes.Split(fields[5], []byte(",")) { // the mount's own flags are kept
			switch string(o) {
			case "nosuid":
				flags |= syscall.MS_NOSUID
			case "nodev":
				flags |= syscall.MS_NODEV
			case "noexec":
				flags |= syscall.MS_NOEXEC
			case "relatime":
				flags |= syscall.MS_RELATIME
			case "noatime":
				flags |= syscall.MS_NOATIME
			}
		}
		if err := syscall.Mount("", unescape(string(fields[4])), "", flags, ""); err != nil {
			return err
		}
	}
	return nil
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	b := []byte(s)
	out := b[:0]
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+3 < len(b) && b[i+1] >= '0' && b[i+1] <= '3' {
			out = append(out, (b[i+1]-'0')<<6|(b[i+2]-'0')<<3|(b[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}
