package layers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

const goTestFile = `//go:build !race

package calc

import "testing"

func helper() int { return 2 }

func TestDiv(t *testing.T) {
	if Div(6, 3) != helper() {
		t.Fatal("Div")
	}
}
`

// The view of a Go test file changes with its build constraints, TestMain
// and init, and not with new tests, helpers or edited test bodies.
func TestGoTestView(t *testing.T) {
	before := View("calc/calc_test.go"+ViewSuffix, []byte(goTestFile))
	honest := []string{
		goTestFile + "\nfunc TestDivFloor(t *testing.T) {\n\tif Div(7, 2) != 3 {\n\t\tt.Fatal(\"floor\")\n\t}\n}\n",
		"// Package calc's tests.\n" + goTestFile[:len(goTestFile)-3] + "\t// a comment\n}\n",
		"//go:build   !race\n\npackage calc\n\nimport \"testing\"\n\nfunc TestDiv(t *testing.T) {}\n",
	}
	for _, h := range honest {
		if got := View("calc/calc_test.go"+ViewSuffix, []byte(h)); !bytes.Equal(got, before) {
			t.Errorf("an honest edit changed the view:\n%s---\n%s", before, got)
		}
	}
	narrowed := []string{
		goTestFile + "\nfunc TestMain(m *testing.M) {}\n",
		"//go:build ignore\n" + goTestFile[len("//go:build !race\n"):],
		goTestFile[len("//go:build !race\n\n"):],
		"// +build linux\n\n" + goTestFile,
		goTestFile + "\nfunc init() {\n\tos.Exit(0)\n}\n",
	}
	for _, n := range narrowed {
		if got := View("calc/calc_test.go"+ViewSuffix, []byte(n)); bytes.Equal(got, before) {
			t.Errorf("this edit left the view as it was:\n%s", n)
		}
	}
	withMain := goTestFile + "\nfunc TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n"
	edited := goTestFile + "\nfunc TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n"
	if bytes.Equal(View("a_test.go"+ViewSuffix, []byte(withMain)), View("a_test.go"+ViewSuffix, []byte(edited))) {
		t.Error("an edited TestMain left the view as it was")
	}
	if v := View("a_test.go"+ViewSuffix, []byte("package a\n\nfunc TestA(t *testing.T) {}\n")); len(v) != 0 {
		t.Errorf("a test file without configuration has view %q, want none", v)
	}
}

// Every compiled Go test file is a runner item, whatever the stage may
// do to tests; test data and vendored files are not.
func TestGoTestRunnerItems(t *testing.T) {
	got := RunnerItems([]string{"calc/calc_test.go", "calc/calc.go", "calc/testdata/x_test.go", "vendor/m/m_test.go", "calc/_old_test.go"}, nil)
	if want := []string{"calc/calc_test.go" + ViewSuffix}; !slices.Equal(got, want) {
		t.Errorf("RunnerItems = %q, want %q", got, want)
	}
}

// In a stage that may change tests, a new Go test file with a TestMain
// still stops the existing tests; one that only adds tests does not.
func TestGoTestStops(t *testing.T) {
	tree := mapTree{
		"calc/main_test.go": "package calc\n\nimport (\"os\"; \"testing\")\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n",
		"calc/more_test.go": "//go:build integration\n\npackage calc\n\nfunc TestMore(t *testing.T) {}\n",
	}
	now := map[string]string{"calc/main_test.go" + ViewSuffix: "h1", "calc/more_test.go" + ViewSuffix: "h2"}
	got := Stops(tree, map[string]string{}, now, true)
	if _, ok := got["calc/main_test.go"]; !ok || len(got) != 1 {
		t.Errorf("stops %v, want calc/main_test.go alone", got)
	}
}

// A Go test file with no configuration may be deleted in a stage that
// may change tests; one that held a build constraint may not.
func TestGuardDeletedEmptyView(t *testing.T) {
	hash := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	plain := hash(View("a_test.go"+ViewSuffix, []byte("package a\n")))
	tagged := hash(View("b_test.go"+ViewSuffix, []byte("//go:build linux\n\npackage a\n")))
	base := map[string]string{"a_test.go" + ViewSuffix: plain, "b_test.go" + ViewSuffix: tagged}
	v := Verdict{Status: status.Done}
	if !v.Guard("coder", base, map[string]string{"b_test.go" + ViewSuffix: tagged}) {
		t.Errorf("deleting a test file without configuration was rejected: %+v", v.Layers)
	}
	v = Verdict{Status: status.Done}
	if v.Guard("coder", base, map[string]string{"a_test.go" + ViewSuffix: plain}) {
		t.Error("deleting a test file with a build constraint passed")
	}
}
