package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// maxInitAllocs bounds the allocations of each of the module's packages
// at ralph-ci's start: a few small package-level maps and slices, not
// one regexp.MustCompile (30 to 1,000 allocations each) or a table built
// from files. Every start of ralph-ci pays for them, and a job starts it
// more than once; make such work lazy (internal/lazyregexp,
// sync.OnceValue).
const maxInitAllocs = 64

// initLine is a line of GODEBUG=inittrace=1: the package and its
// allocations ("init PATH @0.5 ms, 0.1 ms clock, 1024 bytes, 12 allocs").
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.*, (\d+) allocs$`)

// TestInitAllocations runs ralph-ci with GODEBUG=inittrace=1 and fails
// for each package of the module linked into the binary whose init
// allocates more than maxInitAllocs times. Allocation counts are the
// same on every run, unlike init times.
func TestInitAllocations(t *testing.T) {
	shipped := shippedPackages(t)
	cmd := exec.Command(e2e.RalphBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ralph-ci version: %v\n%s", err, out)
	}
	seen := 0
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		if !shipped[m[1]] {
			continue
		}
		seen++
		if n, _ := strconv.Atoi(m[2]); n > maxInitAllocs {
			t.Errorf("%s allocates %d times at start (at most %d): make its package-level work lazy", m[1], n, maxInitAllocs)
		}
	}
	if seen == 0 {
		t.Fatalf("no init of the module's packages in ralph-ci's inittrace:\n%s", out)
	}
}

// shippedPackages are the module's packages that the ralph-ci binary
// links (go list -deps), but for the main package, which the test
// binary replaces with its tests' own.
func shippedPackages(t *testing.T) map[string]bool {
	t.Helper()
	const module = "github.com/ralph-ci/ralph-ci"
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/ralph-ci").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	shipped := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module+"/") && p != module+"/cmd/ralph-ci" {
			shipped[p] = true
		}
	}
	return shipped
}
