package e2e

import (
	"os/exec"
	"testing"
)

// RalphBinary is the ralph-ci binary for the end-to-end tests: the copy of
// this test binary that testscript.Main put, named ralph-ci, in the
// directory it placed first on PATH, so it is found before any installed
// ralph-ci.
func RalphBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("ralph-ci")
	if err != nil {
		t.Fatalf("ralph-ci is not on PATH (TestMain puts it there): %v", err)
	}
	return bin
}
