package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
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

// A change of mind takes effect: a person who allows test changes in the
// spec between rotations releases the tests from the baseline at the next
// rotation, and nothing else (the script keeps its baseline hash, a
// deleted guarded file stays guarded). The agent cannot do the same from
// inside a rotation: what its rotation left is what the guard saw, so the
// baseline stands, and its edit of the front matter is itself a change of
// a guarded item.
func TestGuardRelist(t *testing.T) {
	spec := func(allow bool) string {
		fm := "---\ncompletion:\n  coder:\n    promise: P\n"
		if allow {
			fm += "    allow_test_changes: true\n"
		}
		return fm + "---\n# A\n"
	}
	tree := mapTree{"check.sh": "go test ./...\n", "specs/a.spec.md": spec(false), "a_test.go": "package a\n", "gone_test.go": "package a\n"}
	crit := schema.Criteria{VerificationMethod: "external", VerificationConfig: schema.VerificationConfig{Command: &schema.Command{Shell: "sh check.sh"}}}
	scope := GuardScope{Stage: "coder", Spec: "specs/a.spec.md", SpecHash: "h", Criteria: crit}
	start := GuardBefore(tree, scope, Saved{}, nil)
	if start.Rebase != RebaseNew || !slices.Contains(start.Items, "a_test.go"+TestsSuffix) {
		t.Fatalf("first rotation: %+v", start)
	}
	baseline := start.Held
	// The rotation edits a test (the guard rejects it) and deletes another;
	// the guard saw what it left.
	tree["a_test.go"] = "package a\n// edited\n"
	delete(tree, "gone_test.go")
	seen := Hash(tree, union(start.Items, baseline))

	t.Run("person allows test changes", func(t *testing.T) {
		tree := maps.Clone(tree)
		tree["specs/a.spec.md"] = spec(true)
		scope := scope
		scope.Criteria.AllowTestChanges = true
		b := GuardBefore(tree, scope, Saved{Key: start.Key, Seen: seen}, baseline)
		if b.Rebase != RebaseMoved || !slices.Equal(b.Released, []string{"a_test.go" + TestsSuffix, "gone_test.go" + ViewSuffix, "gone_test.go" + TestsSuffix}) {
			t.Fatalf("rebase %v, released %q: want the tests released", b.Rebase, b.Released)
		}
		if _, ok := b.Adopted["a_test.go"+TestsSuffix]; ok || b.Adopted["check.sh"] != baseline["check.sh"] {
			t.Errorf("adopted %v", b.Adopted)
		}
	})
	t.Run("person edits other criteria", func(t *testing.T) {
		tree := maps.Clone(tree)
		tree["specs/a.spec.md"] = strings.Replace(spec(false), "promise: P", "promise: Q", 1)
		b := GuardBefore(tree, scope, Saved{Key: start.Key, Seen: seen}, baseline)
		if b.Rebase != RebaseMoved || len(b.Released) != 0 || b.Adopted["a_test.go"+TestsSuffix] != baseline["a_test.go"+TestsSuffix] || b.Adopted["gone_test.go"+TestsSuffix] != baseline["gone_test.go"+TestsSuffix] {
			t.Errorf("rebase %v, released %q, adopted %v: the tests stay guarded at their baseline", b.Rebase, b.Released, b.Adopted)
		}
	})
	t.Run("agent allows test changes in its rotation", func(t *testing.T) {
		tree := maps.Clone(tree)
		tree["specs/a.spec.md"] = spec(true)
		scope := scope
		scope.Criteria.AllowTestChanges = true
		seen := Hash(tree, union(start.Items, baseline)) // what its rotation left
		b := GuardBefore(tree, scope, Saved{Key: start.Key, Seen: seen}, baseline)
		if b.Rebase != RebaseKeep || len(b.Released) != 0 {
			t.Fatalf("rebase %v, released %q: the baseline must stand", b.Rebase, b.Released)
		}
		now, _ := GuardAfter(tree, scope, baseline)
		var v Verdict
		if v.Guard("coder", baseline, now) {
			t.Error("the agent's own allow_test_changes passed the guard")
		}
	})
}
