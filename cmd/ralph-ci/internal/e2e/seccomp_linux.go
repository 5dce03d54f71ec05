//go:build linux

package e2e

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Docker's default seccomp profile (moby's profiles/seccomp/default.json)
// as far as ralph-ci's boxes are concerned. Docker fits it to the
// container's capabilities (a rule's includes/excludes "caps"): without
// CAP_SYS_ADMIN it refuses with EPERM the calls below, clone with a
// namespace flag, and clone3 with ENOSYS (so that libc falls back to
// clone, whose flags the filter can read); with CAP_SYS_ADMIN (--cap-add
// SYS_ADMIN) it allows the namespace and mount calls and clone3, and
// still refuses the rest. The profile is an allow-list; the
// filter here is the matching deny-list of the calls that make
// namespaces, mounts, keys, BPF and the like (everything else allowed),
// so that a newer system call the profile's version lacks does not fail
// here where Docker's newer profile lets it through.

// nsFlags are the clone flags Docker's profile refuses without
// CAP_SYS_ADMIN: CLONE_NEWNS|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWCGROUP
// (its SCMP_CMP_MASKED_EQ value 2114060288).
const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// afVsock is the socket family the profile refuses (socket's first
// argument 40).
const afVsock = 40

// dockerRefused are the calls the profile refuses to a container with
// Docker's default capabilities: those it allows only with CAP_SYS_ADMIN
// (mount, namespaces, BPF, perf, fanotify, quotas, host and domain names,
// syslog), those it allows only with a capability Docker does not give by
// default (modules, reboot, accounting, time, ptrace's kin, raw I/O,
// memory policy, tty hangup, open_by_handle_at), and those it never
// allows (keys, pivot_root, userfaultfd, kexec, swap, obsolete calls).
var dockerRefused = append(sysAdminOnly, neverRefused...)

// sysAdminOnly are the calls the profile allows only with CAP_SYS_ADMIN.
var sysAdminOnly = []uintptr{
	unix.SYS_BPF, unix.SYS_FANOTIFY_INIT, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSOPEN,
	unix.SYS_FSPICK, unix.SYS_LOOKUP_DCOOKIE, unix.SYS_MOUNT, unix.SYS_MOUNT_SETATTR, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_PERF_EVENT_OPEN, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	unix.SYS_SETDOMAINNAME, unix.SYS_SETHOSTNAME, unix.SYS_SETNS, unix.SYS_SYSLOG, unix.SYS_UMOUNT2,
	unix.SYS_UNSHARE,
}

// neverRefused are the calls the profile refuses with or without
// CAP_SYS_ADMIN.
var neverRefused = []uintptr{
	// Another capability Docker does not give by default.
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_REBOOT, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE,
	unix.SYS_DELETE_MODULE, unix.SYS_ACCT, unix.SYS_KCMP, unix.SYS_PIDFD_GETFD, unix.SYS_PROCESS_MADVISE,
	unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_VHANGUP,
	unix.SYS_GET_MEMPOLICY, unix.SYS_MBIND, unix.SYS_SET_MEMPOLICY,
	// Never.
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_PIVOT_ROOT, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_MOVE_PAGES,
	unix.SYS_MIGRATE_PAGES, unix.SYS_USELIB, unix.SYS_USTAT, unix.SYS_SYSFS, unix.SYS__SYSCTL,
	unix.SYS_NFSSERVCTL,
}

// x32 is the bit of x86_64's x32 system calls, which the filter refuses
// (Docker's handles them as their x86_64 twins; nothing here makes one).
const x32 = 0x40000000

// dockerSeccomp is the filter for a container with CAP_SYS_ADMIN or
// without, for the machine's architecture (amd64 only: the system call
// numbers are x/sys/unix's of the build). With denyMount it also does
// what AppArmor's docker-default profile does to mount and umount
// ("deny mount, deny umount,": EACCES, whatever the capabilities), for
// a machine without AppArmor.
func dockerSeccomp(sysAdmin, denyMount bool) ([]unix.SockFilter, error) {
	if runtime.GOARCH != "amd64" {
		return nil, fmt.Errorf("the simulated Docker seccomp profile is amd64's, not %s's", runtime.GOARCH)
	}
	const (
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		allow  = unix.SECCOMP_RET_ALLOW
		nr     = 0  // offsetof(struct seccomp_data, nr)
		arch   = 4  // offsetof(struct seccomp_data, arch)
		arg0   = 16 // offsetof(struct seccomp_data, args[0]), its low half on a little-endian machine
	)
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: arch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AUDIT_ARCH_X86_64, SkipTrue: 1},
		bpf.RetConstant{Val: eperm}, // another architecture (i386's int 0x80)
		bpf.LoadAbsolute{Off: nr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32, SkipFalse: 1},
		bpf.RetConstant{Val: eperm},
	}
	if denyMount {
		for _, n := range []uint32{unix.SYS_MOUNT, unix.SYS_UMOUNT2} {
			prog = append(prog,
				bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: n, SkipTrue: 1},
				bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)})
		}
	}
	refused := dockerRefused
	if sysAdmin {
		refused = neverRefused
	}
	for _, n := range refused {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(n), SkipTrue: 1},
			bpf.RetConstant{Val: eperm})
	}
	if !sysAdmin {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE3, SkipTrue: 1},
			bpf.RetConstant{Val: enosys},
			// clone: refused with a namespace flag in its first argument.
			bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE, SkipTrue: 4},
			bpf.LoadAbsolute{Off: arg0, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFlags, SkipFalse: 1},
			bpf.RetConstant{Val: eperm},
			bpf.RetConstant{Val: allow})
	}
	prog = append(prog,
		// socket: refused for AF_VSOCK.
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_SOCKET, SkipTrue: 4},
		bpf.LoadAbsolute{Off: arg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: afVsock, SkipFalse: 1},
		bpf.RetConstant{Val: eperm},
		bpf.RetConstant{Val: allow},
		bpf.RetConstant{Val: allow},
	)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("assembling the seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filter, nil
}

// installSeccomp installs filter on every thread of this process
// (SECCOMP_FILTER_FLAG_TSYNC). Like runc without no_new_privs, it does
// so while the process still has CAP_SYS_ADMIN, before dropping it.
func installSeccomp(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("installing the seccomp filter: %w", errno)
	}
	return nil
}
