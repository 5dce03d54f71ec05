package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLockAcquireRelease(t *testing.T) {
	d := newDir(t)
	l, err := Acquire(d, LockInfo{Command: "run", Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Recovered != nil {
		t.Errorf("unexpected recovery: %v", l.Recovered)
	}
	var info LockInfo
	data, err := os.ReadFile(d.RunFile())
	if err != nil || json.Unmarshal(data, &info) != nil {
		t.Fatalf("run.json: %q, %v", data, err)
	}
	host, _ := os.Hostname()
	if info.PID != os.Getpid() || info.Hostname != host || info.Command != "run" || info.Version != "1.2.3" || info.StartedAt.IsZero() {
		t.Errorf("run.json content: %+v", info)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.RunFile()); !os.IsNotExist(err) {
		t.Error("run.json still exists after Release")
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	l2, err := Acquire(d, LockInfo{Command: "run"})
	if err != nil {
		t.Fatalf("re-acquire after release: %v", err)
	}
	_ = l2.Release()
}

func TestLockHeldSameProcess(t *testing.T) {
	d := newDir(t)
	started := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	l, err := Acquire(d, LockInfo{Command: "run", StartedAt: started})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, err = Acquire(d, LockInfo{Command: "status"})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("want *LockedError, got %T %v", err, err)
	}
	want := fmt.Sprintf(`another ralph-ci (pid %d, started 2026-11-21T10:00:00Z, "run") is working on this repository; wait for it to finish or, if it is gone, delete %s`, os.Getpid(), d.RunFile())
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
	if le.Holder.PID != os.Getpid() || !le.Holder.StartedAt.Equal(started) || le.Holder.Command != "run" || le.OtherHost {
		t.Errorf("holder: %+v", le)
	}
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	d := newDir(t)
	child := startHelper(t, "hold", d)
	if line := child.line(t); line != "won" {
		t.Fatalf("child: %s", line)
	}
	_, err := Acquire(d, LockInfo{Command: "run"})
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != child.cmd.Process.Pid {
		t.Fatalf("want *LockedError held by pid %d, got %v", child.cmd.Process.Pid, err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("another ralph-ci (pid %d, started ", child.cmd.Process.Pid)) {
		t.Errorf("message: %v", err)
	}
	// The child releases on EOF; then the lock is free.
	_ = child.stdin.Close()
	if err := child.cmd.Wait(); err != nil {
		t.Fatalf("child release: %v", err)
	}
	l, err := Acquire(d, LockInfo{Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	// And now a second process is refused.
	other := startHelper(t, "hold", d)
	line := other.line(t)
	if !strings.HasPrefix(line, fmt.Sprintf("locked: another ralph-ci (pid %d,", os.Getpid())) {
		t.Fatalf("second process: %s", line)
	}
	if err := other.cmd.Wait(); err == nil {
		t.Error("second process exited 0")
	}
}

func TestLockOfKilledProcessIsRecovered(t *testing.T) {
	d := newDir(t)
	child := startHelper(t, "hold", d)
	if line := child.line(t); line != "won" {
		t.Fatalf("child: %s", line)
	}
	pid := child.cmd.Process.Pid
	_ = child.cmd.Process.Kill()
	_ = child.cmd.Wait()
	l, err := Acquire(d, LockInfo{Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Recovered == nil || l.Recovered.Holder == nil || l.Recovered.Holder.PID != pid {
		t.Fatalf("want recovery of pid %d, got %+v", pid, l.Recovered)
	}
	if !strings.Contains(l.Recovered.String(), strconv.Itoa(pid)) {
		t.Errorf("recovery message: %s", l.Recovered)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func writeLock(t *testing.T, d Dir, info LockInfo) {
	t.Helper()
	data, _ := json.Marshal(info)
	if err := os.WriteFile(d.RunFile(), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLockOfDeadPIDIsRecovered(t *testing.T) {
	d := newDir(t)
	host, _ := os.Hostname()
	pid := deadPID(t)
	writeLock(t, d, LockInfo{PID: pid, Hostname: host, StartedAt: time.Now(), Command: "run"})
	l, err := Acquire(d, LockInfo{Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Recovered == nil || l.Recovered.Holder.PID != pid || !strings.Contains(l.Recovered.Reason, "no longer running") {
		t.Fatalf("recovered: %+v", l.Recovered)
	}
}

func TestLockUnreadableIsRecovered(t *testing.T) {
	shortTimings(t)
	for name, content := range map[string]string{
		"empty": "", "garbage": "{\"pid\": 12", "no pid": `{"hostname": "h"}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := newDir(t)
			if err := os.WriteFile(d.RunFile(), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			// A fresh file may still be being written: Acquire waits out
			// creationGrace, then recovers it.
			l, err := Acquire(d, LockInfo{Command: "run"})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			if l.Recovered == nil || l.Recovered.Holder != nil {
				t.Fatalf("recovered: %+v", l.Recovered)
			}
			if fi, err := os.Stat(d.RunFile()); err != nil || fi.Size() == 0 {
				t.Fatalf("run.json not rewritten: %v", err)
			}
		})
	}
}

func TestLockOtherHostIsHeld(t *testing.T) {
	d := newDir(t)
	writeLock(t, d, LockInfo{PID: 4242, Hostname: "elsewhere.example", StartedAt: time.Now(), Command: "run"})
	_, err := Acquire(d, LockInfo{Command: "run"})
	var le *LockedError
	if !errors.As(err, &le) || !le.OtherHost {
		t.Fatalf("want *LockedError on another host, got %v", err)
	}
	for _, want := range []string{`pid 4242 on host "elsewhere.example"`, "another machine", "delete " + d.RunFile()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestLockPIDReuseDetected(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	d := newDir(t)
	host, _ := os.Hostname()
	start := processStartTime(os.Getpid())
	if start == 0 {
		t.Skip("no /proc")
	}
	// Our own pid with our start time: alive, held.
	writeLock(t, d, LockInfo{PID: os.Getpid(), Hostname: host, Command: "run", ProcStart: start})
	if _, err := Acquire(d, LockInfo{Command: "run"}); !errors.As(err, new(*LockedError)) {
		t.Fatalf("want *LockedError, got %v", err)
	}
	// Our pid but another start time: the pid was reused, stale.
	writeLock(t, d, LockInfo{PID: os.Getpid(), Hostname: host, Command: "run", ProcStart: start + 1})
	l, err := Acquire(d, LockInfo{Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Recovered == nil || !strings.Contains(l.Recovered.Reason, "another process") {
		t.Fatalf("recovered: %+v", l.Recovered)
	}
}

func TestReleaseLeavesForeignLock(t *testing.T) {
	d := newDir(t)
	l, err := Acquire(d, LockInfo{Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	writeLock(t, d, LockInfo{PID: 1, Hostname: "x", Command: "run"})
	if err := l.Release(); err == nil || !strings.Contains(err.Error(), "no longer belongs") {
		t.Fatalf("Release of a foreign lock: %v", err)
	}
	if _, err := os.Stat(d.RunFile()); err != nil {
		t.Fatal("foreign run.json was removed")
	}
}

func TestOpenEnsuresLocksAndLoads(t *testing.T) {
	dir := At(t.TempDir())
	lock, st, err := Open(dir, LockInfo{Command: "reset"})
	if err != nil || st.Version != Version || st.Iteration != 0 {
		t.Fatalf("Open: %+v, %v", st, err)
	}
	defer lock.Release()
	var locked *LockedError
	if _, _, err := Open(dir, LockInfo{Command: "answer"}); !errors.As(err, &locked) {
		t.Fatalf("second Open: %v, want LockedError", err)
	}
}
