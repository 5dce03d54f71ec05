// Package golden compares test output with golden files in testdata and
// rewrites them when the tests run with -update. It serves every package
// whose tests pin an exact text (reports, prompts, checkpoint texts).
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check fails t unless got equals testdata/name; with -update it first
// writes got there.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s\n--- want ---\n%s", path, got, want)
	}
}

// CheckFile is Check for a file anywhere, such as a generated page of the
// documentation: it fails t unless got equals the file at path; with
// -update it first writes got there.
func CheckFile(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go generate ./cmd/ralph-ci creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./cmd/ralph-ci", path)
	}
}

// Updating tells whether the tests run with -update.
func Updating() bool { return *update }
