package agent

import "syscall"

// dieWithParent makes the kernel kill the agent if ralph-ci dies (kill -9
// included), so an agent cannot go on changing files unsupervised. It also
// covers the moment between fork and exec. Processes the agent started
// are stopped by the shepherd, which gets SIGTERM instead so that it
// can stop them first.
func dieWithParent(attr *syscall.SysProcAttr, shepherded bool) {
	attr.Pdeathsig = syscall.SIGKILL
	if shepherded {
		attr.Pdeathsig = syscall.SIGTERM
	}
}
