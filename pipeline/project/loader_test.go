package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// TestLoaderSeesChanges: a project's loader gives the same specs again
// while nothing changed, and sees every change made after the load: an
// edited spec (a new title) and an added one.
func TestLoaderSeesChanges(t *testing.T) {
	root := t.TempDir()
	ghorigin.WriteFiles(t, root, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh]}\n",
		"specs/a.spec.md": "---\ntitle: First\n---\n# A\n",
	})
	p, err := Load(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Specs) != 1 || p.Specs[0].Title != "First" {
		t.Fatalf("loaded %+v", p.Specs)
	}
	if specs, _, err := p.Loader.Load(); err != nil || len(specs) != 1 || &specs[0] != &p.Specs[0] {
		t.Fatalf("nothing changed: the same specs again, got %v, %v", specs, err)
	}
	write := func(rel, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("specs/a.spec.md", "---\ntitle: Second\n---\n# A\n")
	write("specs/b.spec.md", "# B\n")
	specs, ps, err := p.Loader.Load()
	if err != nil || len(ps) > 0 {
		t.Fatal(err, ps)
	}
	if len(specs) != 2 || specs[0].Title != "Second" || specs[1].Path != "specs/b.spec.md" {
		t.Fatalf("after an edit and an addition: %+v", specs)
	}
}
