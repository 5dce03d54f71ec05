// Package gcfloor keeps the garbage collector of a long-running ralph-ci
// run from collecting a small heap over and over.
//
// Go's default (GOGC=100) collects once the heap has grown by its live
// size, with a 4 MB goal at least. A delivery rotation of `ralph-ci run`
// at one spec keeps about 2 MB live and allocates about 0.8 MB, so it
// collected every two or three rotations, at about 2 ms of CPU a cycle
// (GODEBUG=gctrace=1). With the goal kept at 16 MB while the live heap
// is small, it collects about every eighteen: bench/delivery.sh measured
// ralph-ci's own CPU about 1 ms a rotation lower (of about 11). Above
// the floor (a large project's live heap) nothing changes: GOGC=100.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor is the heap goal Keep holds to at least.
const Floor = 16 << 20

// heapMinimum is Go's least heap goal at GOGC=100, which the runtime
// scales by the percent: at a percent of floor/heapMinimum*100 the least
// goal is floor itself, so no percent above it is needed.
const heapMinimum = 4 << 20

// Percent is the GOGC percent that puts the heap goal at floor bytes for
// a live heap of live bytes (the goal is the live heap grown by the
// percent, and at least heapMinimum scaled by it), the default 100 when
// that goal is already above floor.
func Percent(floor, live uint64) int {
	most := int(floor * 100 / heapMinimum)
	switch {
	case live >= floor/2:
		return 100
	case live == 0: // not measured yet
		return most
	}
	return max(100, min(int((floor-live)*100/live), most))
}

// Keep holds the heap goal at Floor at least until stop, set again
// after every cycle from the live heap it measured; stop puts GOGC's
// percent back. It does nothing when the user set GOGC (the user's
// choice stands).
func Keep() (stop func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	k := &keeper{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	k.old = debug.SetGCPercent(100)
	k.adjust()
	k.arm()
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.stopped = true
		debug.SetGCPercent(k.old)
	}
}

type keeper struct {
	sample  []metrics.Sample
	old     int
	mu      sync.Mutex
	stopped bool
}

// adjust sets the percent for the live heap the last cycle measured.
func (k *keeper) adjust() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return
	}
	metrics.Read(k.sample)
	var live uint64
	if k.sample[0].Value.Kind() == metrics.KindUint64 {
		live = k.sample[0].Value.Uint64()
	}
	debug.SetGCPercent(Percent(Floor, live))
}

// sentinel is an object nothing keeps: its cleanup runs after the cycle
// that found it unreachable (large enough not to share a tiny block).
type sentinel struct{ _ [2]*int }

// arm adjusts the percent after the next cycle, and arms again until
// stopped.
func (k *keeper) arm() {
	runtime.AddCleanup(new(sentinel), func(k *keeper) {
		k.adjust()
		k.mu.Lock()
		stopped := k.stopped
		k.mu.Unlock()
		if !stopped {
			k.arm()
		}
	}, k)
}
