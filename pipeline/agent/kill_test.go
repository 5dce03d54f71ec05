//go:build unix

package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Generous bounds: the tests must not depend on scheduling luck. The
// timeout leaves the shell ample time to set its traps.
const (
	shortTimeout = 500 * time.Millisecond
	shortGrace   = 200 * time.Millisecond
	returnWithin = 10 * time.Second
)

// assertGroupGone checks that no process of the agent's group is left,
// zombies included.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still exists: kill(-pgid, 0) = %v", pgid, err)
	}
}

// run runs inv and checks that it returned in bounded time. It returns the
// output, which also goes to inv.Output if set.
func run(t *testing.T, ctx context.Context, inv Invocation) (Result, string) {
	t.Helper()
	var out syncBuffer
	if inv.Output != nil {
		inv.Output = io.MultiWriter(&out, inv.Output)
	} else {
		inv.Output = &out
	}
	start := time.Now()
	res, err := Run(ctx, inv)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > inv.Timeout+inv.Grace+returnWithin {
		t.Errorf("Run took %v", d)
	}
	return res, out.String()
}

// startedWithin runs try with a timeout that doubles, from shortTimeout,
// until the command printed "started" before its timeout passed: a
// loaded machine can take longer than shortTimeout to start a shell and
// its children, and a run whose timeout came first did not reach what
// the test is about. The verdict is read from a run that did, whatever
// the load (the event, not a clock, decides).
func startedWithin(t *testing.T, try func(timeout time.Duration) (res Result, out string)) (Result, string, time.Duration) {
	t.Helper()
	for timeout := shortTimeout; ; timeout *= 2 {
		res, out := try(timeout)
		if strings.Contains(out, "started") || timeout >= 64*time.Second {
			return res, out, timeout
		}
		t.Logf("the command did not start within its timeout of %v (a loaded machine): again with %v", timeout, 2*timeout)
	}
}

// A tree whose processes all ignore SIGTERM is killed when the timeout
// passes.
func TestRunTimeoutKillsTree(t *testing.T) {
	res, out, timeout := startedWithin(t, func(timeout time.Duration) (Result, string) {
		return run(t, context.Background(), Invocation{
			Argv:    sh(`trap "" TERM; sleep 1000 & sleep 1000 & (sleep 1000; echo never) & echo started; wait`),
			Timeout: timeout,
			Grace:   shortGrace,
		})
	})
	if !res.TimedOut || res.Cancelled || res.Signal != "SIGKILL" || res.ExitCode != -1 || out != "started\n" {
		t.Errorf("result %+v, output %q", res, out)
	}
	if res.Duration < timeout+shortGrace {
		t.Errorf("killed after %v, before timeout and grace", res.Duration)
	}
	assertGroupGone(t, res.PID)
}

// An agent that handles SIGTERM gets to finish within the grace period.
// The context is cancelled once the agent printed "started", that is once
// its trap is set.
func TestRunTermHandled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, out := run(t, ctx, Invocation{
		Argv:   sh(`trap 'echo got TERM; exit 7' TERM; sleep 1000 & echo started; wait`),
		Grace:  returnWithin / 2,
		Output: cancelOnWrite(cancel),
	})
	if !res.Cancelled || res.ExitCode != 7 || res.Signal != "" || out != "started\ngot TERM\n" {
		t.Errorf("result %+v, output %q", res, out)
	}
	assertGroupGone(t, res.PID)
}

// The agent exits, but left a child that keeps the output pipe open: Run
// does not wait for it, and the child is killed (SIGKILL if it ignores
// SIGTERM).
func TestRunLeaderExitsChildHoldsPipe(t *testing.T) {
	for _, script := range []string{
		`sleep 1000 & echo bye`,
		`trap "" TERM; sleep 1000 & echo bye`,
	} {
		res, out := run(t, context.Background(), Invocation{Argv: sh(script), Grace: shortGrace})
		if res.ExitCode != 0 || res.TimedOut || res.Cancelled || out != "bye\n" {
			t.Errorf("%s: result %+v, output %q", script, res, out)
		}
		assertGroupGone(t, res.PID)
	}
}

// A process that left the group (setsid) and holds the pipe cannot be
// killed, but Run does not wait for it either: it stops reading after
// drainWait.
func TestRunEscapedProcessHoldsPipe(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	// The agent exits once the escaped process has written its pid, that
	// is once it left the group.
	res, out := run(t, context.Background(), Invocation{
		Argv: sh(`setsid sh -c 'echo $$ > pid; exec sleep 30' & while [ ! -s pid ]; do sleep 0.01; done; cat pid`),
		Dir:  t.TempDir(),
	})
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("output %q", out)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Errorf("the escaped process %d was killed", pid)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	_, _ = syscall.Wait4(pid, nil, 0, nil) // our child on Linux (subreaper)
	if res.ExitCode != 0 || res.Duration < drainWait {
		t.Errorf("result %+v", res)
	}
}

// Cancelling the context stops the agent like a timeout, reported as
// Cancelled.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, out := run(t, ctx, Invocation{
		Argv:   sh(`trap "" TERM; sleep 1000 & echo started; exec sleep 1000`),
		Grace:  shortGrace,
		Output: cancelOnWrite(cancel),
	})
	// exec sleep replaced the shell but kept the ignored TERM: SIGKILL.
	if !res.Cancelled || res.TimedOut || res.Signal != "SIGKILL" || out != "started\n" {
		t.Errorf("result %+v, output %q", res, out)
	}
	assertGroupGone(t, res.PID)
}

// cancelOnWrite is an output that cancels a context when the agent writes.
func cancelOnWrite(cancel context.CancelFunc) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		cancel()
		return len(p), nil
	})
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
