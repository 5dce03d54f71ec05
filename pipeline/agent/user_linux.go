package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// selfExe is ralph-ci's own executable as a process of the agent's user
// reaches it: the folder ralph-ci was started from may be root's alone (a
// build cache, /root/go/bin), the file itself is not.
const selfExe = "/proc/self/exe"

// runAs makes cmd start as the agent's user (Host.User), the work tree
// lent to it first; a shepherd is ralph-ci itself, started through
// selfExe; in a PID-namespace box the shepherd stays ralph-ci's user and
// starts the command as the agent's (shepherd.AsUser). Without a user it
// changes nothing.
func (h *Host) runAs(cmd *exec.Cmd, shepherded bool) error {
	if h == nil || h.User == nil {
		return nil
	}
	h.User.Snapshot(filepath.Join(h.User.Tree, ownDir)) // the first start: what is there before any agent
	if _, err := h.User.Lend(); err != nil {
		return fmt.Errorf("lending the work tree to the agent's user %s: %w", h.User.User, err)
	}
	if shepherded && h.Boxes.Kind() == box.PIDNS {
		// The first process of a PID namespace mounts its /proc: the
		// shepherd stays root (without capabilities for the command) and
		// starts the command as the user.
		cmd.Args = shepherd.AsUser(cmd.Args, h.User.UID, h.User.GID)
		return nil
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(h.User.UID), Gid: uint32(h.User.GID), Groups: []uint32{}}
	if shepherded {
		cmd.Path = selfExe
	}
	return nil
}

// GiveDir gives a folder ralph-ci made outside the work tree for a
// process to write (a test report's) to the agent's user of its own, if
// there is one.
func (h *Host) GiveDir(dir string) error {
	if h == nil || h.User == nil {
		return nil
	}
	return os.Chown(dir, h.User.UID, h.User.GID)
}

// ownDir is ralph-ci's folder in the work tree, which it writes as root;
// agentStatusFile, in it, is the agent's to write: ralph-ci only reads it
// (a small regular file, else ignored) and removes it.
const (
	ownDir          = ".ralph"
	agentStatusFile = "status"
)

// sweep removes what the agent's user may have planted in ralph-ci's
// folder of the lent work tree (agentuser.Run.Sweep): a link root would
// write through. Call it once the box is emptied.
func (h *Host) sweep() error {
	if h == nil || h.User == nil {
		return nil
	}
	_, err := h.User.Sweep(filepath.Join(h.User.Tree, ownDir), agentStatusFile)
	return err
}
