package state

import (
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// staleLock writes a run.json whose holder is dead.
func staleLock(t *testing.T, d Dir, pid int) {
	t.Helper()
	host, _ := os.Hostname()
	writeLock(t, d, LockInfo{PID: pid, Hostname: host, StartedAt: time.Now(), Command: "run"})
}

// TestLockRecoveryRaceGoroutines: many goroutines of one process recover
// the same stale lock at once; exactly one must win, the others must see
// the winner's lock.
func TestLockRecoveryRaceGoroutines(t *testing.T) {
	pid := deadPID(t)
	const rounds, racers = 100, 8
	for round := range rounds {
		d := newDir(t)
		staleLock(t, d, pid)
		var (
			start  = make(chan struct{})
			wg     sync.WaitGroup
			mu     sync.Mutex
			winner *Lock
			wins   int
			errs   []error
		)
		for range racers {
			wg.Go(func() {
				<-start
				l, err := Acquire(d, LockInfo{Command: "run"})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					wins++
					winner = l
				} else {
					errs = append(errs, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if wins != 1 {
			t.Fatalf("round %d: %d winners", round, wins)
		}
		for _, err := range errs {
			if !errors.As(err, new(*LockedError)) {
				t.Fatalf("round %d: loser got %v, want *LockedError", round, err)
			}
		}
		if winner.Recovered == nil {
			t.Errorf("round %d: the winner did not report the recovery", round)
		}
		if err := winner.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLockRecoveryRaceProcesses: several processes recover the same stale
// lock at once; exactly one wins.
func TestLockRecoveryRaceProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	pid := deadPID(t)
	const rounds, racers = 10, 4
	for round := range rounds {
		d := newDir(t)
		staleLock(t, d, pid)
		var helpers []*helper
		for range racers {
			helpers = append(helpers, startHelper(t, "hold", d))
		}
		wins := 0
		for _, h := range helpers {
			switch line := h.line(t); {
			case line == "won recovered":
				wins++
			case strings.HasPrefix(line, "locked: another ralph-ci"):
			default:
				t.Fatalf("round %d: helper said %q", round, line)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners", round, wins)
		}
		for _, h := range helpers {
			_ = h.stdin.Close()
			_ = h.cmd.Wait()
		}
		if _, err := os.Stat(d.RunFile()); !os.IsNotExist(err) {
			t.Fatalf("round %d: the winner did not release run.json", round)
		}
	}
}

// TestSentinelMutex checks the fallback recovery mutex used where flock is
// unavailable: mutual exclusion, and removal of a sentinel left by a crash.
func TestSentinelMutex(t *testing.T) {
	d := newDir(t)
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				err := withSentinelMutex(d, func() error {
					if inside.Add(1) != 1 {
						overlaps.Add(1)
					}
					time.Sleep(50 * time.Microsecond)
					inside.Add(-1)
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Fatalf("%d overlapping critical sections", overlaps.Load())
	}
	// A sentinel left by a crash is removed once it is old enough.
	p := d.Path() + string(os.PathSeparator) + recoverSentinel
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	ran := false
	if err := withSentinelMutex(d, func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("stale sentinel: ran=%v err=%v", ran, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("sentinel left behind")
	}
}
