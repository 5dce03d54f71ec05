package agent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The shepherd contains everything an agent or a verification command
// starts. ralph-ci starts itself again under the name [ShepherdName],
// which starts the command and is its child subreaper: however a process
// of the command leaves its parent, group or session (setsid, a CLI's
// shell tool starting every command in a session of its own, a
// double-fork daemon), it stays a descendant of the shepherd. When the
// command's main process exits, the shepherd kills every descendant left
// and exits with the command's status; on SIGTERM (a timeout, a cancel,
// or ralph-ci's death: the kernel sends it as the shepherd's parent-death
// signal, after kill -9 too) it sends SIGTERM to all of them, and SIGKILL
// after the grace period. Nothing depends on the processes' cooperation
// or environment.

// ShepherdName is argv[0] of ralph-ci started as a shepherd.
const ShepherdName = "ralph-ci-shepherd"

var (
	shepherdMu  sync.RWMutex
	shepherdExe string
)

// UseShepherd makes every later start of an agent or a command go through
// a shepherd: exe is ralph-ci's own executable, which must call
// [ShepherdMain] when [IsShepherd] (cmd/ralph-ci's main does). "" turns
// it off. It has an effect only where a shepherd can work (Linux).
func UseShepherd(exe string) {
	shepherdMu.Lock()
	defer shepherdMu.Unlock()
	shepherdExe = exe
}

func currentShepherd() string {
	shepherdMu.RLock()
	defer shepherdMu.RUnlock()
	if !shepherdWorks {
		return ""
	}
	return shepherdExe
}

// IsShepherd tells whether args (os.Args) start a shepherd.
func IsShepherd(args []string) bool {
	return len(args) > 0 && filepath.Base(args[0]) == ShepherdName
}

// shepherdArgs is the shepherd's command line for argv.
func shepherdArgs(grace time.Duration, argv []string) []string {
	return append([]string{ShepherdName, "-grace", grace.String(), "--"}, argv...)
}

// parseShepherdArgs reads the shepherd's arguments (os.Args[1:]).
func parseShepherdArgs(args []string) (grace time.Duration, argv []string, err error) {
	if len(args) < 4 || args[0] != "-grace" || args[2] != "--" {
		return 0, nil, fmt.Errorf("usage: %s -grace DURATION -- COMMAND [ARG...]", ShepherdName)
	}
	grace, err = time.ParseDuration(args[1])
	if err != nil {
		return 0, nil, fmt.Errorf("-grace: %w", err)
	}
	return grace, args[3:], nil
}

// resolve finds the command as exec.Command would, in dir, so that a
// command that cannot start is reported by ralph-ci, not by the
// shepherd.
func resolve(name, dir string) (string, error) {
	if !strings.ContainsRune(name, os.PathSeparator) {
		return exec.LookPath(name)
	}
	p := name
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", &os.PathError{Op: "exec", Path: name, Err: errors.New("is a directory")}
	case fi.Mode()&0o111 == 0:
		return "", &os.PathError{Op: "exec", Path: name, Err: os.ErrPermission}
	}
	return p, nil
}
