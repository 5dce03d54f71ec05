package agent

import "syscall"

// dieWithParent makes the kernel kill the agent if ralph-ci dies (kill -9
// included), so an agent cannot go on changing files unsupervised. It also
// covers the moment between fork and exec. Processes the agent started
// are found by RALPH_RUN_ID when the next ralph-ci recovers the lock.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
