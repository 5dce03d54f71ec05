package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// mapTree is a working tree of its files and contents.
type mapTree map[string]string

func (m mapTree) IsFile(rel string) bool { _, ok := m[rel]; return ok }
func (m mapTree) Files() []string        { return slicesSorted(m) }
func (m mapTree) Read(rel string, limit int64) ([]byte, error) {
	s, ok := m[rel]
	if !ok || int64(len(s)) > limit {
		return nil, errors.New("not a small regular file")
	}
	return []byte(s), nil
}

func (m mapTree) Sum(rel string, limit int64, part func([]byte) []byte) string {
	s, ok := m[rel]
	if !ok {
		return ""
	}
	b := []byte(s)
	if limit > 0 {
		b = part(b)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func slicesSorted(m mapTree) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The guard holds the verification's script and what it runs, the spec's
// front matter, the config and the tests, each test apart where its
// runner says how a test starts (a file of another language whole); with
// allow_test_changes, the tests only to tell the new ones.
func TestGuardItems(t *testing.T) {
	tree := mapTree{
		"check.sh": "#!/bin/sh\n. ./lib.sh\ngo test ./...\n", "lib.sh": "x=1\n",
		"specs/a.spec.md": "# A\n", "ralph.yaml": "agents: {}\n",
		"a.go": "package a\n", "a_test.go": "package a\n", "src/test/java/ATest.java": "class ATest {}\n",
	}
	crit := schema.Criteria{VerificationMethod: "external", VerificationConfig: schema.VerificationConfig{Command: &schema.Command{Shell: "sh check.sh"}}}
	got := GuardItems(tree, "specs/a.spec.md", "ralph.yaml", crit)
	want := []string{"a_test.go" + ViewSuffix, "a_test.go" + TestsSuffix, "check.sh", "lib.sh", "ralph.yaml", "specs/a.spec.md" + FrontMatterItem, "src/test/java/ATest.java" + TestsSuffix}
	if !slices.Equal(got, want) {
		t.Errorf("items %q, want %q", got, want)
	}
	crit.AllowTestChanges = true
	if got := GuardItems(tree, "specs/a.spec.md", "", crit); slices.Contains(got, "a_test.go"+TestsSuffix) || !slices.Contains(got, "a_test.go"+OpenTestsSuffix) || slices.Contains(got, "ralph.yaml") {
		t.Errorf("items %q: tests allowed to change, config outside the repository", got)
	}
}

// A new test file that can stop the others is found; one the baseline
// held, or one that stops nothing, is not.
func TestStops(t *testing.T) {
	tree := mapTree{"conftest.py": "collect_ignore_glob = ['*']\n", "b_test.py": "def test_b(): pass\n", "a_test.py": "import sys\nsys.exit(0)\n"}
	baseline := map[string]string{"a_test.py": "h"}
	now := map[string]string{"conftest.py": "h1", "b_test.py": "h2", "a_test.py": "h3"}
	got := Stops(tree, baseline, now, false)
	if _, ok := got["conftest.py"]; !ok || len(got) != 1 {
		t.Errorf("stops %v, want conftest.py alone", got)
	}
	if got := Stops(tree, baseline, now, true); len(got) != 1 {
		t.Errorf("with test changes allowed, a runner configuration still counts: %v", got)
	}
}

// An item reads its file whole, or the part of it it hashes: a spec's
// front matter, a configuration's test keys.
func TestItemFileAndContent(t *testing.T) {
	if f, limit := ItemFile("check.sh"); f != "check.sh" || limit != 0 {
		t.Errorf("a script: %q %d", f, limit)
	}
	spec := "specs/a.spec.md" + FrontMatterItem
	if f, limit := ItemFile(spec); f != "specs/a.spec.md" || limit == 0 {
		t.Errorf("a front matter: %q %d", f, limit)
	}
	src := []byte("---\ncompletion: {outcome: x}\n---\n# A\nprose\n")
	if got := string(ItemContent(spec, src)); !strings.Contains(got, "completion") || strings.Contains(got, "prose") {
		t.Errorf("front matter content %q", got)
	}
	if got := string(ItemContent("check.sh", []byte("exit 0\n"))); got != "exit 0\n" {
		t.Errorf("whole content %q", got)
	}
}
