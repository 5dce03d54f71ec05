// Package box keeps every process ralph-ci starts for code the agent
// could have written (the agent and its tools, verification commands,
// judges, reviewers) in a box the kernel keeps: whatever a process inside
// does (setsid, a double fork, kill -9 of its parent, a chain of forks
// racing a sweep of /proc), it stays in the box, and ralph-ci empties the
// box before it goes on. Nothing depends on a process of the agent's user.
//
// Each start gets a box of its own ([Boxes.New]), made before the start
// and emptied ([Box.Empty]) before the start's Run returns: so a box is
// empty before ralph-ci verifies, commits, lends a credential to git or
// starts the next rotation. Empty says which processes it had to kill.
//
// The kinds:
//
//   - cgroup: a cgroup v2 folder per box, below ralph-ci's own cgroup
//     (the "0::" line of /proc/self/cgroup, under the cgroup2 mount of
//     /proc/self/mountinfo). The process is started straight into it
//     (clone3 with CLONE_INTO_CGROUP), so nothing of it runs outside for
//     an instant; Empty writes cgroup.kill, waits for cgroup.events to say
//     "populated 0" (inotify tells when it changes), and removes the
//     folder. It needs a cgroup ralph-ci may write: root, or a cgroup
//     delegated to its user (as systemd delegates user@UID.service), or
//     passwordless sudo, through which a non-root ralph-ci delegates a
//     cgroup to itself at the cgroup2 mount's root (sudo -n, before any
//     box) and removes it at Close.
//   - pidns: where no cgroup can be had, a PID namespace per box, whose
//     first process is the shepherd (ralph-ci itself), with a mount
//     namespace where it mounts the namespace's /proc. ralph-ci makes it
//     with CLONE_NEWPID where it has CAP_SYS_ADMIN, else in a user
//     namespace that maps only its own uid (where the kernel lets an
//     unprivileged user make one). When the shepherd exits (its command
//     ended, it was killed, or ralph-ci died), the kernel kills every
//     process of the namespace and reaps them before the shepherd's exit
//     is seen (zap_pid_ns_processes): so the box is empty once Empty's
//     wait for the shepherd returns. Inside, kill -9 of PID 1 does
//     nothing, and no process outside can be seen or signalled. The
//     shepherd lists the processes it kills from its /proc, on a pipe
//     (its descriptor 3).
//   - off: no box; only the shepherd's sweep of /proc, which a process of
//     the agent's user can outrun or kill. [Open] gives it only when asked.
package box

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is how [Open] picks the box: one of [Modes].
type Mode string

// The modes.
const (
	Auto   Mode = "auto"   // the best box the kernel gives (a cgroup), or refuse
	Cgroup Mode = "cgroup" // a cgroup v2 per start, or refuse
	PIDNS  Mode = "pidns"  // a PID namespace per start, or refuse
	Off    Mode = "off"    // no box (the opt-out)
)

// Modes lists the modes, as the config's box.mode and run --box take them.
var Modes = []Mode{Auto, Cgroup, PIDNS, Off}

// Proc is a process a box had to kill.
type Proc struct {
	PID  int
	Comm string // its /proc/PID/comm, "" when it was gone already
}

// String is "PID (COMM)".
func (p Proc) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Comm) }

// Names lists procs as "PID (COMM)", comma-separated.
func Names(procs []Proc) string {
	s := make([]string, len(procs))
	for i, p := range procs {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

// ErrNoBox is the error of [Open] when the kernel gives no box in the
// mode asked for; its message says why for each kind tried.
var ErrNoBox = errors.New("no box for the agent's processes")

// Ways says how to get a box where Open found none: the end of the
// error run gives then, before OptOut.
const Ways = "a box needs a writable cgroup v2 (ralph-ci as root, with passwordless sudo, or in a cgroup delegated to its user; " +
	"a container job with `options: --privileged`) or a PID namespace (CAP_SYS_ADMIN, or unprivileged user namespaces; " +
	"a container job with `options: --cap-add SYS_ADMIN --security-opt apparmor=unconfined`); " +
	"see docs/security.md"

// OptOut says how to run without a box, and what that costs: the end of
// the error run gives when there is none.
const OptOut = "to run without one, set `box: {mode: off}` in the config or pass `run --box off`: " +
	"then a process the agent starts can outlive its rotation (a setsid'd process that kills its shepherd, " +
	"or a chain of forks that outruns the shepherd's sweep of /proc), read the job's token from ralph-ci's " +
	"git commands and change the work tree after it was verified"
