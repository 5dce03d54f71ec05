package project

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
)

// TestRestrict: a shard keeps only its specs, in this load and in every
// later one of a Loader built with Only; a path that is no spec fails.
func TestRestrict(t *testing.T) {
	root := t.TempDir()
	ghorigin.WriteFiles(t, root, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh]}\n",
		"PROMPT.md":       "# P\n",
		"specs/a.spec.md": "# A\n",
		"specs/b.spec.md": "# B\n",
	})
	p, err := Load(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Restrict([]string{"specs/b.spec.md", "specs/nope.spec.md"}); err == nil || !strings.Contains(err.Error(), "specs/nope.spec.md") {
		t.Fatalf("a path that is no spec: %v", err)
	}
	if len(p.Specs) != 3 {
		t.Fatalf("a failed Restrict changed the specs: %d", len(p.Specs))
	}
	if err := p.Restrict([]string{"specs/b.spec.md", "PROMPT.md"}); err != nil {
		t.Fatal(err)
	}
	l := &Loader{Root: root, Config: p.Config, Only: p.Only}
	again, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	paths := func(specs []plan.Spec) []string {
		var out []string
		for _, sp := range specs {
			out = append(out, sp.Path)
		}
		return out
	}
	for _, specs := range [][]string{paths(p.Specs), paths(again)} {
		if strings.Join(specs, " ") != "PROMPT.md specs/b.spec.md" {
			t.Fatalf("specs %v, want PROMPT.md and specs/b.spec.md", specs)
		}
	}
}
