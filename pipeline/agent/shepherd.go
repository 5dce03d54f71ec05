package agent

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// Every agent and verification command can run under a shepherd
// (internal/shepherd): ralph-ci started again, which contains everything
// the command starts and stops it when the command ends, on a timeout and
// when ralph-ci dies.

var (
	shepherdMu  sync.RWMutex
	shepherdExe string
	denied      []string // see DenyWrites
)

// UseShepherd makes every later start of an agent or a command go through
// a shepherd: exe is ralph-ci's own executable, which becomes the shepherd
// when started as [shepherd.Name] (any binary that links this package
// does, from internal/shepherd's init). "" turns it off. It has an effect
// only where a shepherd can work (Linux).
func UseShepherd(exe string) {
	shepherdMu.Lock()
	defer shepherdMu.Unlock()
	shepherdExe = exe
}

// DenyWrites makes every agent and command started from now on unable to
// write in the folders dirs (ralph-ci's own git directories), through the
// shepherd and Landlock (internal/shepherd.DenyWrites), where both work.
func DenyWrites(dirs ...string) {
	shepherdMu.Lock()
	defer shepherdMu.Unlock()
	denied = append([]string(nil), dirs...)
}

// deniedDirs are the folders of DenyWrites.
func deniedDirs() []string {
	shepherdMu.RLock()
	defer shepherdMu.RUnlock()
	return denied
}

func currentShepherd() string {
	shepherdMu.RLock()
	defer shepherdMu.RUnlock()
	if !shepherd.Works {
		return ""
	}
	return shepherdExe
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
