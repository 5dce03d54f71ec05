//go:build !linux

package agent

import "os/exec"

// runAs does nothing here: only Linux runs the agent as a user of its
// own (internal/agentuser), so Host.User is always nil.
func (h *Host) runAs(*exec.Cmd, bool) error { return nil }

// GiveDir does nothing here (no user of the agent's own).
func (h *Host) GiveDir(string) error { return nil }

// sweep does nothing here (no user of the agent's own).
func (h *Host) sweep() error { return nil }
