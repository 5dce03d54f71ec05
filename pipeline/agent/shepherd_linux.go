package agent

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// shepherdWorks: Linux has child subreapers and parent-death signals.
const shepherdWorks = true

// ShepherdMain runs the shepherd (args are os.Args[1:]) and returns its
// exit status: the command's, or 127 when it could not start.
func ShepherdMain(args []string) int {
	grace, argv, err := parseShepherdArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintf(os.Stderr, "%s: cannot become a child subreaper: %v\n", ShepherdName, errno)
		return 127
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	path, err := resolve(argv[0], "")
	if err == nil {
		var p *os.Process
		p, err = os.StartProcess(path, argv, &os.ProcAttr{
			Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
		})
		if err == nil {
			os.Stdin.Close() // the command has its own
			return herd(p.Pid, grace, sigs)
		}
	}
	fmt.Fprintf(os.Stderr, "%s: starting %s: %v\n", ShepherdName, argv[0], err)
	return 127
}

// herd waits for the command's main process (leader) and the rest of
// the herd, as described in shepherd.go, and returns the exit status.
func herd(leader int, grace time.Duration, sigs <-chan os.Signal) int {
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
				return exitWith(status)
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

// killDescendants sends sig to every descendant of this process.
func killDescendants(sig syscall.Signal) {
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		queue = append(queue, children[p]...)
	}
	return out
}

// parentOf reads the parent of pid from /proc/pid/stat.
func parentOf(pid int) (int, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(stat)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ')' {
			var state byte
			var ppid int
			if _, err := fmt.Sscanf(s[i+1:], " %c %d", &state, &ppid); err != nil {
				return 0, false
			}
			return ppid, true
		}
	}
	return 0, false
}
