//go:build unix

package agent

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// limitSlack bounds what a run may allocate besides a JSON document.
const limitSlack = 16 << 20

// hugeLine is an agent printing n bytes on one line, without newline.
func hugeLine(n int64) []string {
	return sh("head -c " + strconv.FormatInt(n, 10) + " /dev/zero | tr '\\0' a")
}

// 64 MiB on one line go through every format without being held: the heap
// allocated during the whole run stays far below the output's size. This
// counts allocations (TotalAlloc), so it does not depend on when the
// garbage collector runs.
func TestHugeLineMemory(t *testing.T) {
	const size = 64 << 20
	const limit = limitSlack
	for _, format := range FormatNames() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Run(context.Background(), Invocation{
			Argv: hugeLine(size), Format: format, Output: io.Discard,
			Watch: []string{"requires manual", "cannot be automated"},
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if res.OutputBytes != size {
			t.Fatalf("%s: read %d bytes", format, res.OutputBytes)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		inuse := int64(after.HeapInuse) - int64(before.HeapInuse)
		t.Logf("%s: allocated %d KiB during the run, heap in use %+d KiB", format, alloc>>10, inuse>>10)
		if alloc > limit || inuse > limit {
			t.Errorf("%s: allocated %d bytes, heap in use grew by %d bytes, for %d bytes of output", format, alloc, inuse, size)
		}
	}
}

// A JSON document longer than MaxJSONBytes is skipped, and the next one
// read. Its buffer grows by doubling up to MaxJSONBytes: less than twice
// that is allocated in all.
func TestHugeJSONLineMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 256 MiB")
	}
	const size = 256 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(context.Background(), Invocation{
		Argv:   sh(`printf '{"type":"result","result":"'; head -c 268435456 /dev/zero | tr '\0' a; printf '"}\n{"type":"result","result":"RALPH_STATUS: DONE"}\n'`),
		Format: "claude",
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.Done || res.OutputBytes < size {
		t.Errorf("report %+v", res.Report)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*MaxJSONBytes+limitSlack {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
}

// BenchmarkHugeLine streams 1 GiB on one line through Run (text format)
// to io.Discard. It reports the throughput, the process's peak RSS during
// the run (VmHWM, reset before it where the kernel allows), the heap
// obtained from the OS (HeapSys) and the bytes allocated per run.
//
//	go test -run XXX -bench HugeLine -benchtime 3x ./pipeline/agent/
func BenchmarkHugeLine(b *testing.B) {
	const size = 1 << 30
	argv := hugeLine(size)
	resetPeakRSS()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		res, err := Run(context.Background(), Invocation{Argv: argv, Output: io.Discard, Watch: []string{"requires manual"}})
		if err != nil || res.OutputBytes != size {
			b.Fatalf("%d bytes, %v", res.OutputBytes, err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(after.HeapSys)/(1<<20), "HeapSys-MiB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<10), "alloc-KiB/op")
}

// resetPeakRSS resets VmHWM (Linux: "5" to /proc/self/clear_refs).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns VmHWM in bytes, or -1 where /proc is missing.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			return kb << 10
		}
	}
	return -1
}
