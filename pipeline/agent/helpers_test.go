package agent

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testNow is the clock of the scanners in tests: relative reset times
// ("try again in 20s") are measured from it, and clock times without a
// zone are read in its zone (UTC), whatever TZ the tests run with.
var testNow = time.Date(2026, time.March, 10, 14, 0, 0, 0, time.UTC)

// scan reads data whole with the named format.
func scan(t testing.TB, format string, data []byte, watch ...string) Report {
	t.Helper()
	s, err := newScanner(format, watch, func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.Write(data)
	return s.Report()
}

// scanChunks reads data in chunks of sizes chosen by seed: every byte
// alone, small random chunks, or random chunks up to 4 KiB.
func scanChunks(t testing.TB, format string, data []byte, seed uint64, watch ...string) Report {
	t.Helper()
	s, err := newScanner(format, watch, func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	largest := [...]int{1, 16, 4096}[seed%3]
	for len(data) > 0 {
		n := min(1+rng.IntN(largest), len(data))
		_, _ = s.Write(data[:n])
		data = data[n:]
	}
	return s.Report()
}

// fixture returns the contents of testdata/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
