package agentuser

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Proc is a process that was killed.
type Proc struct {
	PID  int
	Comm string
}

// String is "PID (COMM)".
func (p Proc) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Comm) }

// killUser kills every process of uid (its real, effective or saved
// uid) in ralph-ci's PID namespace, again until none is left (a process may fork
// while the scan runs), and returns those it killed. Each is signalled
// through a pidfd opened before its uid is checked again, so a PID used
// again meanwhile is never hit. It fails when some are still alive after
// ten seconds.
func killUser(uid int) ([]Proc, error) {
	if uid <= 0 {
		return nil, fmt.Errorf("uid %d is not an agent's", uid)
	}
	var killed []Proc
	seen := map[int]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive := 0
		for _, p := range userProcs(uid) {
			alive++
			fd, err := unix.PidfdOpen(p.PID, 0)
			if err != nil {
				continue // gone
			}
			// Read again now that the pidfd holds the process: the PID
			// may have been used again since userProcs read it.
			if comm, ok := procOf(p.PID, uid); ok {
				if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err == nil && !seen[p.PID] {
					seen[p.PID] = true
					killed = append(killed, Proc{p.PID, comm})
				}
			}
			unix.Close(fd)
		}
		if alive == 0 {
			return killed, nil
		}
		if time.Now().After(deadline) {
			return killed, fmt.Errorf("processes of uid %d are still alive after SIGKILL", uid)
		}
		time.Sleep(10 * time.Millisecond) // the killed ones to die
	}
}

// userProcs lists the processes of uid that are alive (not zombies), in
// ralph-ci's PID namespace: a container's processes, which a host sees,
// are of the container's users even where the uid is the same (its own
// pool, its own lock folder); a killed run's processes are in it (a
// boxed PID namespace dies with its first process).
// Each /proc/PID/status is read once.
func userProcs(uid int) []Proc {
	entries, _ := os.ReadDir("/proc")
	self, _ := os.Readlink("/proc/self/ns/pid")
	var procs []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if ns, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || ns != self {
			continue
		}
		if comm, ok := procOf(pid, uid); ok {
			procs = append(procs, Proc{pid, comm})
		}
	}
	return procs
}

// procOf tells whether the process pid is alive and of uid (real,
// effective or saved), and its name.
func procOf(pid, uid int) (string, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "", false
	}
	var comm string
	of, alive := false, true
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		f := strings.Fields(v)
		switch k {
		case "Name":
			comm = strings.TrimSpace(v)
		case "State":
			alive = len(f) > 0 && f[0] != "Z" && f[0] != "X"
		case "Uid":
			for i := 0; i < len(f) && i < 3; i++ {
				if f[i] == strconv.Itoa(uid) {
					of = true
				}
			}
		}
	}
	return comm, of && alive
}

// chmodTop sets the mode of the folder top (never a link).
func chmodTop(top string, mode uint32) error {
	fd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("opening %s: %w", top, err)
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, mode&0o7777); err != nil {
		return fmt.Errorf("chmod %s: %w", top, err)
	}
	return nil
}
