package e2e

import (
	"os"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// Forge pushes, as a person, a commit with the tree of the state commit
// genuine, re-parented onto onto (and on genuine, a fast-forward), to ref.
func (w *CIWorld) Forge(ref, genuine, onto string) string {
	t := w.T
	ghorigin.Git(t, w.Seed, "fetch", "--quiet", "origin", genuine, onto)
	forged := ghorigin.Git(t, w.Seed, "commit-tree", genuine+"^{tree}", "-p", onto, "-p", genuine, "-m", "ralph-ci state at the end of the run")
	ghorigin.Git(t, w.Seed, "push", "--quiet", "--force", "origin", forged+":"+ref)
	if w.Rev(ref) != forged || w.Rev(ref+"^1") != onto {
		t.Fatalf("the forged state was not pushed to %s", ref)
	}
	return forged
}

// Rotations is the number of agent calls so far.
func (w *CIWorld) Rotations() int {
	entries, _ := os.ReadDir(w.Prompts)
	return len(entries)
}
