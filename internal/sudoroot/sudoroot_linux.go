package sudoroot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/procs"
	"golang.org/x/sys/unix"
)

// Works: Linux runs ralph-ci again as root through sudo.
const Works = true

// sudoPaths are where ralph-ci looks for sudo: system folders only, never
// $PATH, which the job or a checkout's script may have changed.
var sudoPaths = []string{"/usr/bin/sudo", "/bin/sudo", "/usr/sbin/sudo", "/usr/local/bin/sudo"}

// Path is sudo's path in a system folder, "" when there is none.
func Path() string {
	for _, p := range sudoPaths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// probeWait bounds the probe: a guard against a hang, as sudo -n never
// prompts.
const probeWait = 30 * time.Second

// Probe tells whether sudo runs a command as root without asking for a
// password, keeping the environment (sudo -n -E -u root true, as Relaunch
// asks): nil when it does, else why not (sudo's own words).
func Probe(sudo string) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, sudo, "-n", "-E", "-u", "root", "--", "true")
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal to prompt on
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s -n: %w: %s", sudo, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// relayed are the signals the invoking ralph-ci passes on to sudo, which
// passes them on to the run as root: an Actions runner cancels a step
// with SIGINT, then SIGTERM.
var relayed = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Relaunch runs exe (ralph-ci's own binary) as root through sudo -n -E
// with args, in the current folder, with stdin, stdout and stderr, and
// returns its exit code (128+signal when a signal ended it); an error
// that is ErrNotStarted says the run as root never started. p reaches it
// on a pipe it opens through /proc (FromVar, in sudo's environment); the
// signals of relayed are passed on to sudo, which passes them on. sudo
// runs in a process group of its own, so that each signal reaches the
// run as root once, through it (on a terminal, sudo's group is the
// foreground one, which the terminal's keys signal).
func Relaunch(sudo, exe string, args []string, p Payload, stdin, stdout, stderr *os.File) (int, error) {
	raw, err := p.Encode()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	defer r.Close()
	go func() { // past the pipe's size, a write waits for the reader
		_, _ = w.Write(raw)
		w.Close()
	}()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, FromVar+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(sudo, append([]string{"-n", "-E", "-u", "root", "--", exe}, args...)...)
	cmd.Env = append(env, FromVar+"="+strconv.Itoa(os.Getpid())+"/"+strconv.Itoa(int(r.Fd())))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stdin != nil && isTerminal(stdin) { // the terminal's keys go to sudo's group
		cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, 0
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, relayed...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrNotStarted, sudo, err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", sudo, err)
	}
	return 0, nil
}

// isTerminal tells whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Receive is the payload of a run as root that Relaunch started: nil
// when FromVar is unset or ralph-ci is not root. It reads the pipe of
// the invoking ralph-ci, which must be a process of SUDO_UID that
// started this one (through sudo).
func Receive() (*Payload, error) {
	v := os.Getenv(FromVar)
	if v == "" || os.Geteuid() != 0 {
		return nil, nil
	}
	uid, _, ok := Invoker(os.Geteuid(), os.Getenv)
	if !ok {
		return nil, fmt.Errorf("%s is set, but ralph-ci did not come through sudo (no SUDO_UID)", FromVar)
	}
	pid, fd, err := ParseFrom(v)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(pid), &st); err != nil || int(st.Uid) != uid {
		return nil, fmt.Errorf("%s: process %d is not the invoking user's (uid %d)", FromVar, pid, uid)
	}
	if !ancestor(pid, 3) {
		return nil, fmt.Errorf("%s: process %d did not start this one through sudo", FromVar, pid)
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	if err != nil {
		return nil, fmt.Errorf("%s: opening the invoking ralph-ci's pipe: %w", FromVar, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil, fmt.Errorf("%s: descriptor %d of process %d is not a pipe", FromVar, fd, pid)
	}
	raw, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the invoking ralph-ci's pipe: %w", FromVar, err)
	}
	p, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// ancestor tells whether pid is this process's parent, or the parent's
// parent, up to depth levels up: sudo, and with a terminal sudo's
// monitor, stand between the invoking ralph-ci and its run as root.
func ancestor(pid, depth int) bool {
	p := os.Getppid()
	for i := 0; i < depth && p > 1; i++ {
		if p == pid {
			return true
		}
		p, _ = procs.Parent(p)
	}
	return false
}

// Missing is the first folder of path's that does not exist yet, path
// itself when its folder exists: what writing path creates.
func Missing(path string) string {
	top := path
	for dir := filepath.Dir(path); dir != top; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		top = dir
	}
	return top
}

// GiveBack gives top, and everything below it when it is a folder, to
// uid:gid, never following a symbolic link: what ralph-ci, as root, made
// for the user who ran it through sudo.
func GiveBack(top string, uid, gid int) error {
	return filepath.Walk(top, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
