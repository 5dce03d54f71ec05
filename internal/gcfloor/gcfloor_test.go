package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{live: 2 * mb, want: 400},  // a delivery rotation at one spec: Go's least goal, 4 MB, scaled to 16 MB
		{live: 4 * mb, want: 300},  // 4 MB grown by 300%: 16 MB
		{live: 6 * mb, want: 166},  // about 16 MB
		{live: 8 * mb, want: 100},  // GOGC=100 reaches the floor
		{live: 40 * mb, want: 100}, // a large project: as Go does
		{live: 0, want: 400},       // not measured yet: the least goal at the floor
	} {
		if got := Percent(Floor, c.live); got != c.want {
			t.Errorf("Percent(16 MB, %d MB) = %d, want %d", c.live/mb, got, c.want)
		}
	}
}

// Keep sets the percent for the live heap, and again after each cycle:
// a percent set by hand meanwhile is put back after the next one.
func TestKeepSetsThePercentAfterEachCycle(t *testing.T) {
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	runtime.GC() // the live heap measured
	stop := Keep()
	defer stop()
	p := debug.SetGCPercent(100)
	if p <= 100 {
		t.Fatalf("percent after Keep = %d, want above 100 for this test's small heap", p)
	}
	// The cleanup runs after a cycle finds the sentinel unreachable; the
	// keeper then sets the percent again (runtime.GC waits for the cycle,
	// not for the cleanup, hence the bounded retries).
	for i := 0; i < 1000; i++ {
		runtime.GC()
		runtime.Gosched()
		if now := debug.SetGCPercent(100); now == p {
			return
		}
	}
	t.Fatal("the percent was not set again after a cycle")
}

// Once stopped, the percent is the one before Keep, and stays.
func TestStopPutsThePercentBack(t *testing.T) {
	t.Setenv("GOGC", "")
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	runtime.GC()
	Keep()()
	runtime.GC()
	runtime.GC()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("percent after stop = %d, want 100", p)
	}
}

// A user's GOGC stands.
func TestKeepLeavesTheUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "50")
	old := debug.SetGCPercent(50)
	defer debug.SetGCPercent(old)
	runtime.GC()
	defer Keep()()
	runtime.GC()
	if p := debug.SetGCPercent(50); p != 50 {
		t.Fatalf("percent = %d after Keep with GOGC=50, want 50", p)
	}
}
