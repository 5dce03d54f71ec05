package deliver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateCommitHoldsTheFilesAsTheyAre: the state commit (written by
// ralph-ci into the object store) holds exactly the saved files with their bytes, under
// .ralph/, its first parent the work commit it describes and its second
// the previous state commit; a file the agent named with a line break and
// what a fast-import stream would take for commands (.ralph is in its
// reach) adds nothing to it; git fsck finds every object sound, and
// restoring it writes the same files back.
func TestStateCommitHoldsTheFilesAsTheyAre(t *testing.T) {
	_, dir, s := started(t)
	ctx := context.Background()
	state := filepath.Join(dir, ".ralph")
	evil := "handoffs/a\nM 100644 inline .ralph/state.json\ndata 6\nforged\n.md"
	files := map[string]string{
		"state.json":    `{"version": 1, "iteration": 3}` + "\n",
		"guardrails.md": "be careful \"here\" \\ and \x01 there\n",
		evil:            "the agent's note\n",
		"logs/x.log":    "never saved\n",
	}
	for rel, content := range files {
		p := filepath.Join(state, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	head := git(t, dir, "rev-parse", "HEAD")
	first, _, _, err := saveState(s.Git, state, head, "", "first\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	second, _, _, err := saveState(s.Git, state, head, first, "second\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if parents := git(t, dir, "log", "-1", "--format=%P", second); parents != head+" "+first {
		t.Fatalf("parents %q, want %s %s", parents, head, first)
	}
	git(t, dir, "fsck", "--strict", "--no-dangling", "--no-progress", second)
	tree := git(t, dir, "ls-tree", "-r", "-z", "--name-only", second)
	want := []string{".ralph/guardrails.md", ".ralph/" + evil, ".ralph/state.json"}
	if got := strings.Split(strings.TrimSuffix(tree, "\x00"), "\x00"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the state commit holds %q, want %q", got, want)
	}
	for _, rel := range []string{"state.json", "guardrails.md", evil} {
		if got := git(t, dir, "cat-file", "blob", second+":.ralph/"+rel); got != strings.TrimSpace(files[rel]) {
			t.Errorf("%q holds %q, want %q", rel, got, files[rel])
		}
	}
	restored := t.TempDir()
	if described, err := restoreState(ctx, s.Git, restored, second); err != nil || described != head {
		t.Fatalf("restore: %s, %v", described, err)
	}
	for _, rel := range []string{"state.json", "guardrails.md", evil} {
		if b, err := os.ReadFile(filepath.Join(restored, filepath.FromSlash(rel))); err != nil || string(b) != files[rel] {
			t.Errorf("restored %q: %q, %v", rel, b, err)
		}
	}
}
