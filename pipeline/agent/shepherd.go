package agent

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Every agent and verification command can run under a shepherd
// (internal/shepherd): ralph-ci started again, which contains everything
// the command starts and stops it when the command ends, on a timeout and
// when ralph-ci dies.

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
