package shards

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// TestFold: the integrated folder holds the base's per-spec files, each
// replaced by the shard's copy where the shard changed it, the merged
// guardrails and the merged state; nothing the base had is lost.
func TestFold(t *testing.T) {
	root := t.TempDir()
	base, one, two, dst := filepath.Join(root, "base"), filepath.Join(root, "one"), filepath.Join(root, "two"), filepath.Join(root, "dst")
	ghorigin.WriteFiles(t, base, map[string]string{"handoffs/a.md": "a base\n", "handoffs/b.md": "b base\n", "handoffs/c.md": "c base\n", "guardrails.md": "# G\n"})
	ghorigin.WriteFiles(t, one, map[string]string{"handoffs/a.md": "a by one\n", "handoffs/b.md": "b base\n", "guardrails.md": "# G\none\n"})
	ghorigin.WriteFiles(t, two, map[string]string{"handoffs/a.md": "a base\n", "handoffs/b.md": "b by two\n", "progress/b.md": "b progress\n", "guardrails.md": "# G\ntwo\n"})
	ghorigin.WriteFiles(t, dst, map[string]string{"handoffs/stale.md": "left by an older run\n"})
	merged := state.State{Version: state.Version, Iteration: 3, Specs: []state.SpecState{{Path: "a"}}}
	if err := Fold(dst, base, []string{one, two}, merged); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"handoffs/a.md": "a by one\n", "handoffs/b.md": "b by two\n", "handoffs/c.md": "c base\n", "progress/b.md": "b progress\n", "guardrails.md": "# G\none\ntwo\n"}
	for name, content := range want {
		if got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name))); err != nil || string(got) != content {
			t.Errorf("%s: %q (%v), want %q", name, got, err, content)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "handoffs", "stale.md")); err == nil {
		t.Error("a handoff the integrated state does not hold was kept")
	}
	st, err := state.Load(state.Dir(dst))
	if err != nil || st.Iteration != 3 || len(st.Specs) != 1 {
		t.Fatalf("state %+v (%v)", st, err)
	}
}
