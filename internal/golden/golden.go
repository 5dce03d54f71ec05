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
	check(t, filepath.Join("testdata", name), got, "go test -update")
}

// CheckFile is Check for a file anywhere, such as a generated page of the
// documentation: it fails t unless got equals the file at path; with
// -update it first writes got there.
func CheckFile(t testing.TB, path string, got []byte) {
	t.Helper()
	check(t, path, got, "go generate ./cmd/ralph-ci")
}

// check compares got with the file at path (writing it first with
// -update); how says what rewrites it.
func check(t testing.TB, path string, got []byte, how string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, how)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (%s rewrites it); got:\n%s\n--- want ---\n%s", path, how, got, want)
	}
}

// CheckSection is CheckFile for the part of the file at path between the
// lines "<!-- generated: NAME -->" and "<!-- end of generated: NAME -->",
// such as a generated table inside a page written by hand.
func CheckSection(t testing.TB, path, name string, want []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin := []byte("<!-- generated: " + name + " -->\n")
	end := []byte("<!-- end of generated: " + name + " -->")
	i, j := bytes.Index(src, begin), bytes.Index(src, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no section between %q and %q", path, bytes.TrimSpace(begin), end)
	}
	if bytes.Equal(src[i+len(begin):j], want) {
		return
	}
	if !*update {
		t.Errorf("%s: the generated %s are stale: run go generate ./cmd/ralph-ci", path, name)
		return
	}
	out := append(append(append([]byte{}, src[:i+len(begin)]...), want...), src[j:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
