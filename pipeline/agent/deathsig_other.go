//go:build unix && !linux

package agent

import "syscall"

// dieWithParent is Linux-only (Pdeathsig); elsewhere nothing happens.
func dieWithParent(*syscall.SysProcAttr, bool) {}
