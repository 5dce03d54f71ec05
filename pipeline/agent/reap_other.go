//go:build unix && !linux

package agent

// enableReaping does nothing: only Linux has child subreapers; elsewhere
// orphaned agent processes are reaped by init (launchd).
func enableReaping() {}

// reapGroup does nothing: this process never adopts orphans here.
func reapGroup(int) {}
