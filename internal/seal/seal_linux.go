package seal

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Seal starts ralph-ci again (exec, same process, args) without the
// entries of its environment that secret names: /proc/PID/environ shows
// a process's environment as it was started, to every process of the
// same user (and to root), so unsetting the variables would not hide
// them. The entries it removed reach the new image on a pipe, read once
// at the door (Unsealed). Already sealed, or with nothing to remove, it
// returns; when exec fails, ralph-ci goes on unsealed and says so on
// stderr.
func Seal(args []string, secret func(name string) bool) {
	if os.Getenv(FDVar) != "" {
		return
	}
	keep, moved := Split(os.Environ(), secret)
	if len(moved) == 0 {
		return
	}
	if err := Exec(args, keep, moved, nil); err != nil {
		fmt.Fprintf(os.Stderr, "ralph-ci: warning: cannot take the job's credentials out of its own environment: %v\n", err)
	}
}

// Exec execs ralph-ci (args) with the environment keep, the entries
// moved on a pipe named by FDVar, and each secret of fds on a pipe of
// its own, named by its variable (the token's, the push-token's: as the
// Action hands them). It returns only when exec fails.
func Exec(args, keep, moved []string, fds map[string]string) error {
	env := keep
	var open []*os.File
	defer func() {
		for _, f := range open {
			f.Close()
		}
	}()
	pipe := func(name, payload string) error {
		if len(payload) > 60<<10 { // more than a pipe holds without a reader
			return fmt.Errorf("%s holds %d bytes", name, len(payload))
		}
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		open = append(open, r)
		_, err = w.WriteString(payload)
		w.Close()
		if err != nil {
			return err
		}
		fd := r.Fd()
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, 0); errno != 0 {
			return errno
		}
		env = append(env, name+"="+strconv.Itoa(int(fd)))
		return nil
	}
	if err := pipe(FDVar, strings.Join(moved, "\x00")); err != nil {
		return fmt.Errorf("the variables to seal: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(fds)) {
		if err := pipe(name, fds[name]); err != nil {
			return err
		}
	}
	return syscall.Exec("/proc/self/exe", args, env)
}

// prSetDumpable is PR_SET_DUMPABLE from <linux/prctl.h>.
const prSetDumpable = 4

// NonDumpable makes /proc/PID/environ, fd, mem and maps of ralph-ci
// readable by root only: agents run as the same user. It ends at exec,
// so the processes ralph-ci starts are not affected.
func NonDumpable() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
}
