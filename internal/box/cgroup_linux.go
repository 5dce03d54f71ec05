package box

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// emptyWait bounds the wait for the kernel to empty a killed cgroup: a
// guard against a hang (a process in uninterruptible sleep), not a delay
// anyone waits in the usual case.
const emptyWait = 30 * time.Second

// cgroupRun is the run's cgroup: dir/ralph-ci-PID below ralph-ci's own,
// one folder per box below it.
type cgroupRun struct {
	dir   string
	seq   atomic.Int64
	deleg *delegation // the cgroup delegated through sudo, or nil
}

// openCgroup makes the run's cgroup below ralph-ci's own, after removing
// those of runs whose ralph-ci is gone (their processes killed). Where
// ralph-ci's own cgroup is not writable and ralph-ci is not root, it
// delegates a cgroup to itself through passwordless sudo (sudo -n), as
// systemd delegates one, and makes the run's cgroup below that.
func openCgroup() (*cgroupRun, error) {
	own, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	removeStale(own)
	var deleg *delegation
	dir := filepath.Join(own, "ralph-ci-"+strconv.Itoa(os.Getpid()))
	err = os.Mkdir(dir, 0o755)
	if errors.Is(err, syscall.EROFS) { // no user, sudo or delegation helps
		return nil, fmt.Errorf("ralph-ci's cgroup %s is on a read-only mount, as a container's /sys/fs/cgroup is unless the container is privileged "+
			"(a container job's `options: --privileged` makes it writable): %w", own, err)
	}
	if errors.Is(err, os.ErrPermission) && os.Geteuid() != 0 {
		var serr error
		if deleg, serr = delegateBySudo(own); serr != nil {
			return nil, fmt.Errorf("ralph-ci's cgroup %s is not writable (run ralph-ci as root, with passwordless sudo, or in a cgroup delegated to this user): %w; %w", own, err, serr)
		}
		dir = filepath.Join(deleg.dir, "ralph-ci-"+strconv.Itoa(os.Getpid()))
		err = os.Mkdir(dir, 0o755)
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		undo(deleg)
		return nil, fmt.Errorf("ralph-ci's cgroup %s is not writable (run ralph-ci as root, with passwordless sudo, or in a cgroup delegated to this user): %w", own, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		_ = os.Remove(dir)
		undo(deleg)
		return nil, fmt.Errorf("this kernel has no cgroup.kill (Linux 5.14 or later has): %w", err)
	}
	return &cgroupRun{dir: dir, deleg: deleg}, nil
}

// undo undoes d, if any, on a path where the run gets no box.
func undo(d *delegation) {
	if d != nil {
		_ = d.undo()
	}
}

// OwnCgroup is the folder of this process's cgroup v2 (tests delegate one
// below it, as systemd delegates a cgroup to a user).
func OwnCgroup() (string, error) { return ownCgroup() }

// CgroupMount is where the cgroup2 file system is mounted (tests check
// that no delegated cgroup is left at its root).
func CgroupMount() (string, error) {
	mount, _, err := cgroup2Mount()
	return mount, err
}

// RemoveStale removes the cgroups of runs whose ralph-ci is gone, killing
// what is left in them, as the next run does (tests that kill ralph-ci
// with SIGKILL call it so as to leave nothing behind).
func RemoveStale() {
	if own, err := ownCgroup(); err == nil {
		removeStale(own)
	}
}

// Remove empties the cgroup folder dir and those below it (cgroup.kill),
// waits until it is empty and removes it; it returns the processes killed.
func Remove(dir string) ([]Proc, error) { return kill(dir, 0) }

// ownCgroup is the folder of ralph-ci's cgroup v2: the "0::" line of
// /proc/self/cgroup, under the cgroup2 mount of /proc/self/mountinfo.
func ownCgroup() (string, error) {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var path string
	found := false
	for _, line := range strings.Split(string(raw), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2 in /proc/self/cgroup")
	}
	mount, root, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	rel, ok := strings.CutPrefix(path, root)
	if !ok || (rel != "" && rel[0] != '/' && root != "/") {
		return "", fmt.Errorf("ralph-ci's cgroup %s is outside the cgroup2 mount %s (root %s)", path, mount, root)
	}
	return filepath.Join(mount, rel), nil
}

// cgroup2Mount finds the cgroup2 file system in /proc/self/mountinfo:
// where it is mounted and which folder of the hierarchy is its root.
func cgroup2Mount() (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, kind := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(kind) > 0 && kind[0] == "cgroup2" {
			return unescape(fields[4]), unescape(fields[3]), nil
		}
	}
	return "", "", errors.New("no cgroup2 file system is mounted")
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeStale kills and removes the cgroups of earlier runs below own
// whose ralph-ci no longer runs (killed with SIGKILL before it could).
func removeStale(own string) {
	entries, _ := os.ReadDir(own)
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "ralph-ci-"))
		if err != nil || !e.IsDir() || !strings.HasPrefix(e.Name(), "ralph-ci-") || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
			continue // its ralph-ci still runs
		}
		_, _ = kill(filepath.Join(own, e.Name()), 0)
	}
}

// box makes the folder of one box and opens it for CLONE_INTO_CGROUP.
func (r *cgroupRun) box() (*Box, error) {
	dir := filepath.Join(r.dir, strconv.FormatInt(r.seq.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the box %s: %w", dir, err)
	}
	fd, err := syscall.Open(dir, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("opening the box %s: %w", dir, err)
	}
	return &Box{cg: &cgroupBox{dir: dir, fd: fd}}, nil
}

// close empties and removes the run's cgroup.
func (r *cgroupRun) close() ([]Proc, error) {
	killed, err := kill(r.dir, 0)
	if r.deleg != nil {
		if uerr := r.deleg.undo(); err == nil {
			err = uerr
		}
	}
	return killed, err
}

// cgroupBox is the cgroup of one box: its folder, open.
type cgroupBox struct {
	dir string
	fd  int
}

// empty kills what is left in the box, waits until the kernel says it is
// empty and removes it. leader, the process started, is its caller's to
// reap.
func (c *cgroupBox) empty(leader int) ([]Proc, error) {
	defer syscall.Close(c.fd)
	return kill(c.dir, leader)
}

// kill empties the cgroup dir and every one below it (cgroup.kill),
// waits for cgroup.events to say it is empty, reaps the killed processes
// that were children of this process (all but leader), and removes the
// folders. It returns the processes killed.
func kill(dir string, leader int) ([]Proc, error) {
	var killed []Proc
	seen := map[int]bool{}
	note := func() {
		for _, pid := range members(dir) {
			if !seen[pid] {
				seen[pid] = true
				killed = append(killed, Proc{PID: pid, Comm: comm(pid)})
			}
		}
	}
	note()
	var err error
	if populated(dir) {
		if werr := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); werr != nil {
			return killed, fmt.Errorf("killing the box %s: %w", dir, werr)
		}
		note() // those forked while the first list was read
		err = waitEmpty(dir, emptyWait)
	}
	for _, p := range killed {
		if p.PID != leader {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.PID, &ws, syscall.WNOHANG, nil) // ECHILD: not this process's child
		}
	}
	if rerr := removeTree(dir); rerr != nil && err == nil {
		err = rerr
	}
	return killed, err
}

// members lists the processes of the cgroup dir and those below it.
func members(dir string) []int {
	var pids []int
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		raw, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		for _, f := range strings.Fields(string(raw)) {
			if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids
}

// comm is the command name of pid ("" once it is gone).
func comm(pid int) string {
	raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return string(bytes.TrimSpace(raw))
}

// populated tells whether the cgroup dir or one below it holds a process
// (its cgroup.events says "populated 1"; a folder gone holds none).
func populated(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	return err == nil && bytes.Contains(raw, []byte("populated 1"))
}

// waitEmpty waits until cgroup.events of dir says "populated 0": the
// kernel marks the file modified when that changes, which inotify tells.
func waitEmpty(dir string, d time.Duration) error {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("watching the box %s: %w", dir, err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	defer f.Close()
	if _, err := syscall.InotifyAddWatch(fd, filepath.Join(dir, "cgroup.events"), syscall.IN_MODIFY); err != nil {
		return fmt.Errorf("watching the box %s: %w", dir, err)
	}
	_ = f.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 4096)
	for populated(dir) {
		if _, err := f.Read(buf); err != nil {
			return fmt.Errorf("the box %s was not empty %s after cgroup.kill: %w", dir, d, err)
		}
	}
	return nil
}

// removeTree removes the cgroup folder dir and those below it, deepest
// first (a cgroup folder goes with rmdir alone).
func removeTree(dir string) error {
	var dirs []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	var first error
	for _, d := range slices.Backward(dirs) {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) && first == nil {
			first = fmt.Errorf("removing the box %s: %w", d, err)
		}
	}
	return first
}
