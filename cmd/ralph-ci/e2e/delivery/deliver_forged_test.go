package delivery

import (
	"maps"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// autoFiles is the repository of the delivery tests with one auto-tier
// spec the scripted agent verifies in three rotations without changing a
// file, so that the gate has no checkpoint to wait for.
func autoFiles() map[string]string {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["specs/a.spec.md"] = "# A\n"
	files["agent.sh"] = e2e.PRAgent
	return files
}

func TestForgedStateRef(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), autoFiles())
	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr")
	genuine := w.Rev(deliver.StateRef("changes"))

	// Control: the genuine state is bound to the head; the gate passes
	// and the next run has nothing left to do.
	w.Job("", "")
	w.Ralph(0, "check", "--deliver", "pr")
	before := w.Rotations()
	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr")
	if n := w.Rotations() - before; n != 0 {
		t.Fatalf("run on the genuine verified state called the agent %d times", n)
	}

	// A person pushes an unverified commit and re-parents the state onto it.
	human := w.PersonPushes()
	w.Forge(deliver.StateRef("changes"), w.Rev(deliver.StateRef("changes")), human)
	if genuine == "" {
		t.Fatal("no genuine state")
	}
	w.Job("", "")
	_, stderr := w.Ralph(3, "check", "--deliver", "pr")
	e2e.Contains(t, "check on the forged state", stderr, "is not bound to its commit by ralph-ci's own ralph-ci/state status")

	before = w.Rotations()
	w.Job("", "")
	_, stderr = w.Ralph(0, "run", "--deliver", "pr")
	e2e.Contains(t, "run on the forged state", stderr, "treated as no state and the specs are verified again")
	if n := w.Rotations() - before; n != 3 {
		t.Fatalf("run on the forged state called the agent %d times, want 3 (verified again)", n)
	}
	// The state it pushed is its own again: the gate passes.
	w.Job("", "")
	w.Ralph(0, "check", "--deliver", "pr")
}

func TestForgedShardRef(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), autoFiles())
	shard := deliver.ShardRef("changes", "1-of-1")

	// Control: the genuine shard state is integrated; nothing is left to do.
	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr", "--shard", "1-of-1")
	genuine := w.Rev(shard)
	before := w.Rotations()
	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr", "--integrate")
	if n := w.Rotations() - before; n != 0 {
		t.Fatalf("the integration of the genuine shard called the agent %d times", n)
	}
	if w.Rev(shard) != "" {
		t.Fatal("the integrated shard state was not deleted")
	}

	// A person pushes an unverified commit and re-parents the genuine
	// shard state onto it: folded in, it would say the spec is 3/3 at the
	// new head (the branch's genuine state describes the older one).
	human := w.PersonPushes()
	w.Forge(shard, genuine, human)
	before = w.Rotations()
	w.Job("", "")
	_, stderr := w.Ralph(0, "run", "--deliver", "pr", "--integrate")
	e2e.Contains(t, "the integration of the forged shard", stderr, "refs/ralph-ci/shards/1-of-1/changes", "(not integrated)")
	// The branch's genuine state holds: 3/3 before the person's push,
	// which drops it to 2/3, and one verification pass brings it back.
	if n := w.Rotations() - before; n != 1 {
		t.Fatalf("the integration of the forged shard called the agent %d times, want 1 (verified again on the new head)", n)
	}
	w.Job("", "")
	w.Ralph(0, "check", "--deliver", "pr")
}
