package delivery

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// blockingAgent says it started (a file in the work tree) and waits, so
// that the test can kill its run while the run holds its git folder.
const blockingAgent = `#!/bin/sh
touch started
exec sleep 1000
`

// TestNextRunRemovesAKilledRunsGitFolder: a run killed with SIGKILL
// never removes its git folder in /var/tmp/ralph-ci-UID; the next run
// does, and leaves alone the folder of a run that is still going (two
// runs at once are legal), until that one is gone too.
func TestNextRunRemovesAKilledRunsGitFolder(t *testing.T) {
	bin := e2e.RalphBinary(t)
	files := maps.Clone(e2e.CIRepoFiles)
	files["agent.sh"] = blockingAgent
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	defer cancel()

	killed, killedDir := startHeldRun(ctx, t, bin, files)
	killRun(t, killed)
	if _, err := os.Stat(killedDir); err != nil {
		t.Fatalf("the killed run's git folder is not left to remove: %v", err)
	}

	live, liveDir := startHeldRun(ctx, t, bin, files) // the next run
	if _, err := os.Stat(killedDir); !os.IsNotExist(err) {
		t.Errorf("the next run left the killed run's git folder %s (%v)", killedDir, err)
	}

	quick := e2e.NewCIWorld(t, bin, e2e.CIRepoFiles)
	quick.Job("", "")
	quick.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1") // a run while live goes on (3: its limit)
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("a run removed the git folder of a live run: %v", err)
	}

	killRun(t, live)
	quick.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1")
	if _, err := os.Stat(liveDir); !os.IsNotExist(err) {
		t.Errorf("the run after the second kill left its git folder %s (%v)", liveDir, err)
	}
}

// heldRun is a run started by startHeldRun.
type heldRun struct {
	wait func() error
	pid  int
	kill func() error
}

// startHeldRun starts a delivery run whose agent blocks, waits for the
// agent to start, and returns the run with the git folder it holds open
// (read from /proc/PID/fd: the folder it locks, see internal/git.hold).
func startHeldRun(ctx context.Context, t *testing.T, bin string, files map[string]string) (heldRun, string) {
	t.Helper()
	w := e2e.NewCIWorld(t, bin, files)
	w.Job("", "")
	cmd, _, stderr := w.Command(ctx, "run", "--deliver", "pr", "--max-rotations", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	r := heldRun{pid: cmd.Process.Pid, kill: cmd.Process.Kill, wait: func() error { <-done; return waitErr }}
	t.Cleanup(func() { _ = r.kill(); _ = r.wait() })
	for {
		if _, err := os.Stat(filepath.Join(w.Dir, "started")); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("the run ended before its agent started (%v):\n%s", waitErr, stderr)
		case <-ctx.Done():
			t.Fatalf("the agent did not start:\n%s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	base := filepath.Join("/var/tmp", "ralph-ci-"+strconv.Itoa(os.Getuid())) + string(filepath.Separator)
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(r.pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/" + strconv.Itoa(r.pid) + "/fd/" + fd.Name())
		if err == nil && strings.HasPrefix(target, base+"git-run-") {
			return r, target
		}
	}
	t.Fatalf("run %d holds no git folder in %s", r.pid, base)
	return r, ""
}

// killRun kills the run with SIGKILL and waits for it to end.
func killRun(t *testing.T, r heldRun) {
	t.Helper()
	if err := r.kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.wait()
}
