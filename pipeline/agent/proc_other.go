//go:build !unix

package agent

import (
	"os"
	"os/exec"
	"time"
)

// setGroup does nothing: without process groups only the agent itself can
// be stopped, not the processes it started.
func setGroup(*exec.Cmd, bool) {}

// signalGroup kills the agent: there is no gentle signal here.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }

// groupAlive cannot see the agent's children: once the agent was reaped,
// nothing is known to be left.
func groupAlive(*exec.Cmd) bool { return false }

// abortRead makes a blocked read of the output pipe return.
func abortRead(f *os.File) {
	if f.SetReadDeadline(time.Now()) != nil {
		f.Close()
	}
}

// signalName is always "": exit codes tell everything here.
func signalName(*os.ProcessState) string { return "" }
