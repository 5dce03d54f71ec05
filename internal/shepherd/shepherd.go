// Package shepherd contains everything an agent or a verification
// command starts. ralph-ci starts itself again under the name [Name],
// which starts the command and is its child subreaper: however a process
// of the command leaves its parent, group or session (setsid, a CLI's
// shell tool starting every command in a session of its own, a
// double-fork daemon), it stays a descendant of the shepherd. When the
// command's main process exits, the shepherd kills every descendant left
// and exits with the command's status; on SIGTERM (a timeout, a cancel,
// or ralph-ci's death: the kernel sends it as the shepherd's parent-death
// signal, after kill -9 too) it sends SIGTERM to all of them, and SIGKILL
// after the grace period. Nothing depends on the processes' cooperation
// or environment.
//
// Where internal/box makes a PID namespace for the start (InPIDNS), the
// shepherd is its PID 1: it mounts the namespace's /proc, and when the
// command's main process exits (or the grace period after SIGTERM ends)
// it names what is left on a descriptor of ralph-ci's and exits, and the
// kernel kills the rest of the namespace.
//
// The shepherd runs from this package's init, so that a binary that
// links it becomes the shepherd when started as [Name], whatever its main
// does, and before most of its package inits: ralph-ci links CUE, YAML,
// protobuf and GitHub packages whose inits cost milliseconds, and every
// agent and verification command start pays for a shepherd. The linker
// runs the inits in the order of their import paths wherever the imports
// allow, so this package imports only what those heavy packages need
// anyway: fmt, strings or path/filepath would pull internal/fmtsort or
// internal/filepathlite in, which are initialized after them, and this
// package after those. TestShepherdStartsBeforeHeavyInits (cmd/ralph-ci)
// checks the order with GODEBUG=inittrace=1.
package shepherd

import (
	"bytes"
	"errors"
	"os"
	"time"
)

// Name is argv[0] of ralph-ci started as a shepherd.
const Name = "ralph-ci-shepherd"

func init() {
	if Is(os.Args) {
		os.Exit(Main(os.Args[1:]))
	}
}

// Is tells whether args (os.Args) start a shepherd: argv[0]'s base name
// is [Name].
func Is(args []string) bool {
	return len(args) > 0 && args[0][bytes.LastIndexByte([]byte(args[0]), '/')+1:] == Name
}

// Args is the shepherd's command line for argv, whose first element is
// the path of the command to start. write, when not empty, are the only
// paths the command and everything it starts may change (see
// AllowWrites).
func Args(grace time.Duration, write, argv []string) []string {
	args := []string{Name, "-grace", grace.String()}
	for _, w := range write {
		args = append(args, "-write", w)
	}
	return append(append(args, "--"), argv...)
}

// WithConnect is the shepherd's command line args (from Args) with the
// command and everything it starts allowed to connect, over TCP, to
// port alone (decimal; see ConnectOnly): where ralph-ci has no network
// box, the proxy's port.
func WithConnect(args []string, port string) []string {
	return append([]string{args[0], "-connect", port}, args[1:]...)
}

// InPIDNS is the shepherd's command line args (from Args or
// WithConnect) for a shepherd started as the first process (PID 1) of a
// PID namespace of its own, with a mount namespace of its own too
// (internal/box makes both): it mounts a /proc of that namespace, and
// when the command ends it lists what is left there into the descriptor
// [ReportFD], kills it all and exits; the kernel then kills whatever
// forked in between, and its parent's wait for it returns only once the
// namespace is empty. idmap is "UID:GID" when the namespaces were made
// in a new user namespace that the shepherd maps (its uid and gid to
// themselves, as the one process that may), "-" when not.
func InPIDNS(args []string, idmap string) []string {
	return append([]string{args[0], pidnsFlag, idmap}, args[1:]...)
}

// ProbeArgs is the command line of a shepherd that only checks that it
// can be a namespace's first process (InPIDNS, with idmap) and exits 0,
// or 127 with the reason on stderr: internal/box starts it once to learn
// whether the kernel gives a PID namespace here.
func ProbeArgs(idmap string) []string { return []string{Name, probeFlag, idmap} }

// ReportFD is the descriptor on which a shepherd of InPIDNS lists the
// processes it killed, one "PID COMM" line each (PIDs of its namespace).
const ReportFD = 3

const (
	pidnsFlag = "-pidns"
	probeFlag = "-pidns-probe"
)

// cutPIDNS takes a leading "-pidns IDMAP" off the shepherd's arguments.
func cutPIDNS(args []string) (ns bool, idmap string, rest []string) {
	if len(args) > 1 && args[0] == pidnsFlag {
		return true, args[1], args[2:]
	}
	return false, "", args
}

// AsUser is the shepherd's command line args with the command (not the
// shepherd) started as uid:gid, without supplementary groups: where the
// shepherd must stay root (the first process of a PID namespace mounts
// its /proc), the agent's user of its own (internal/agentuser).
func AsUser(args []string, uid, gid int) []string {
	return append([]string{args[0], userFlag, itoa(uid) + ":" + itoa(gid)}, args[1:]...)
}

const userFlag = "-user"

// cutUser takes a leading "-user UID:GID" off the shepherd's arguments;
// ok is false for one that is not two numbers.
// ids is nil for none.
func cutUser(args []string) (ids []int, ok bool, rest []string) {
	if len(args) < 2 || args[0] != userFlag {
		return nil, true, args
	}
	uid, gid, found := bytes.Cut([]byte(args[1]), []byte(":"))
	u, okU := atoi(uid)
	g, okG := atoi(gid)
	if !found || !okU || !okG {
		return nil, false, args
	}
	return []int{u, g}, true, args[2:]
}

// atoi reads a decimal number of at most 9 digits.
func atoi(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(b) > 0 && len(b) < 10
}

// itoa writes n in decimal (not strconv: see the package documentation
// on inits).
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// cutConnect takes a leading "-connect PORT" off the shepherd's
// arguments: the port, 0 for none, -1 for one that is not a port.
func cutConnect(args []string) (port int, rest []string) {
	if len(args) < 2 || args[0] != "-connect" {
		return 0, args
	}
	for _, c := range []byte(args[1]) {
		if c < '0' || c > '9' || port > 65535 {
			return -1, args
		}
		port = port*10 + int(c-'0')
	}
	if port == 0 || port > 65535 {
		return -1, args
	}
	return port, args[2:]
}

// parseArgs reads the shepherd's arguments (os.Args[1:]).
func parseArgs(args []string) (grace time.Duration, write, argv []string, err error) {
	usage := errors.New("usage: " + Name + " -grace DURATION [-write PATH]... -- COMMAND [ARG...]")
	if len(args) < 4 || args[0] != "-grace" {
		return 0, nil, nil, usage
	}
	grace, err = time.ParseDuration(args[1])
	if err != nil {
		return 0, nil, nil, errors.New("-grace: " + err.Error())
	}
	rest := args[2:]
	for len(rest) >= 2 && rest[0] == "-write" {
		write, rest = append(write, rest[1]), rest[2:]
	}
	if len(rest) < 2 || rest[0] != "--" {
		return 0, nil, nil, usage
	}
	return grace, write, rest[1:], nil
}

// say writes a line to stderr.
func say(line string) {
	_, _ = os.Stderr.WriteString(line + "\n")
}
