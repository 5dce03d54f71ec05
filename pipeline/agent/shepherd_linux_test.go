package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// testBinary is the test binary, which doubles as the shepherd.
func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// escapers starts a background child, one in a session of its own that
// ignores SIGTERM, and one that double-forks, writes their pids to
// pids.txt and waits until they are written.
const escapers = `sleep 9001 & echo $! >> pids.txt
setsid sh -c 'trap "" TERM; echo $$ >> pids.txt; exec sleep 9002' &
(sh -c 'echo $$ >> pids.txt; exec sleep 9003' &) 
while [ "$(wc -l < pids.txt)" -lt 3 ]; do sleep 0.01; done
`

// readPids reads the pids the escapers wrote.
func readPids(t *testing.T, dir string) []int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "pids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pids.txt: %v", err)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 3 {
		t.Fatalf("pids.txt holds %v", pids)
	}
	return pids
}

// assertDead checks that none of pids is alive (a zombie counts as dead),
// waiting up to within for the kernel to finish.
func assertDead(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	for _, pid := range procs.Survivors(pids, within) {
		t.Errorf("process %d survived", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Under the shepherd, nothing the command started survives its end: a
// background child, a setsid'd one that ignores SIGTERM, a double-forked
// one; and the output's end is not waited for.
func TestShepherdKillsEverythingAtExit(t *testing.T) {
	dir := t.TempDir()
	res, err := runWith(context.Background(), Invocation{
		Argv: sh(escapers + `setsid sh -c 'while :; do echo tick; sleep 0.1; done' &
echo bye`), Dir: dir, Grace: shortGrace}, testBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.Signal != "" || res.TimedOut {
		t.Errorf("result %+v", res)
	}
	// A daemon that keeps writing to the pipe held the run for drainMax
	// before the shepherd.
	if res.Duration >= drainMax/2 {
		t.Errorf("the run took %v: it waited for the daemon's output", res.Duration)
	}
	assertDead(t, readPids(t, dir), returnWithin)
	assertGroupGone(t, res.PID)
}

// On a timeout too, and the exit status and signal are the command's.
func TestShepherdTimeout(t *testing.T) {
	var dir string
	res, _, _ := startedWithin(t, func(timeout time.Duration) (Result, string) {
		dir = t.TempDir()
		res, err := runWith(context.Background(), Invocation{
			Argv: sh(escapers + `trap "" TERM; echo started; sleep 1000`), Dir: dir,
			Timeout: timeout, Grace: shortGrace}, testBinary(t))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Tail, "started") { // what it started must die all the same
			if raw, err := os.ReadFile(filepath.Join(dir, "pids.txt")); err == nil {
				for _, f := range strings.Fields(string(raw)) {
					if pid, err := strconv.Atoi(f); err == nil {
						assertDead(t, []int{pid}, returnWithin)
					}
				}
			}
		}
		return res, res.Tail
	})
	if !res.TimedOut || res.Signal != "SIGKILL" {
		t.Errorf("result %+v", res)
	}
	assertDead(t, readPids(t, dir), returnWithin)
}

// The command's exit status passes through the shepherd, and a command
// that cannot start is reported by ralph-ci, as without a shepherd.
func TestShepherdExitStatusAndStartError(t *testing.T) {
	res, err := runWith(context.Background(), Invocation{Argv: sh(`echo out; exit 3`)}, testBinary(t))
	if err != nil || res.ExitCode != 3 || !strings.Contains(res.Tail, "out") {
		t.Errorf("result %+v, %v", res, err)
	}
	res, err = runWith(context.Background(), Invocation{Argv: []string{"no-such-agent-xyz"}}, testBinary(t))
	if err == nil || res.PID != 0 || res.Failure(err) != NotStarted {
		t.Errorf("missing command: result %+v, %v", res, err)
	}
}

// After kill -9 of the process that ran the command (ralph-ci), the
// shepherd stops everything the command started.
func TestShepherdParentKilled(t *testing.T) {
	dir := t.TempDir()
	parent := exec.Command(testBinary(t))
	parent.Dir = dir
	parent.Env = append(os.Environ(), parentEnv+"="+escapers+`echo started; sleep 1000`)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, err := out.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "started") {
		t.Fatalf("parent said %q, %v", buf[:n], err)
	}
	pids := readPids(t, dir)
	_ = parent.Process.Kill()
	_ = parent.Wait()
	assertDead(t, pids, shortGrace+returnWithin)
}
