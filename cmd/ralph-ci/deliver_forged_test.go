package main

import (
	"maps"
	"os"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// A state ref or a shard's can be written by anyone who may push: in the
// simulated pull_request job, a person with write access re-parents the
// loop's genuine state commit (every spec 3/3) onto a new head nobody
// verified and pushes it. ralph-ci's own commit status (ralph-ci/state)
// binds a state commit to the commit it describes; the forged one has
// none, so the gate fails and run verifies the specs again. Each attack
// comes after its control: the genuine state passes.

// autoFiles is the repository of the delivery tests with one auto-tier
// spec the scripted agent verifies in three rotations without changing a
// file, so that the gate has no checkpoint to wait for.
func autoFiles() map[string]string {
	files := maps.Clone(ciRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["specs/a.spec.md"] = "# A\n"
	files["agent.sh"] = prAgent
	return files
}

// forge pushes, as a person, a commit with the tree of the state commit
// genuine, re-parented onto onto (and on genuine, a fast-forward), to ref.
func (w *ciWorld) forge(ref, genuine, onto string) string {
	t := w.t
	ghorigin.Git(t, w.Seed, "fetch", "--quiet", "origin", genuine, onto)
	forged := ghorigin.Git(t, w.Seed, "commit-tree", genuine+"^{tree}", "-p", onto, "-p", genuine, "-m", "ralph-ci state at the end of the run")
	ghorigin.Git(t, w.Seed, "push", "--quiet", "--force", "origin", forged+":"+ref)
	if w.Rev(ref) != forged || w.Rev(ref+"^1") != onto {
		t.Fatalf("the forged state was not pushed to %s", ref)
	}
	return forged
}

// rotations is the number of agent calls so far.
func (w *ciWorld) rotations() int {
	entries, _ := os.ReadDir(w.prompts)
	return len(entries)
}

func TestForgedStateRef(t *testing.T) {
	w := newCIWorld(t, ralphBinary(t), autoFiles())
	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr")
	genuine := w.Rev(deliver.StateRef("changes"))

	// Control: the genuine state is bound to the head; the gate passes
	// and the next run has nothing left to do.
	w.job("", "")
	w.ralph(0, "check", "--deliver", "pr")
	before := w.rotations()
	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr")
	if n := w.rotations() - before; n != 0 {
		t.Fatalf("run on the genuine verified state called the agent %d times", n)
	}

	// A person pushes an unverified commit and re-parents the state onto it.
	human := w.personPushes()
	w.forge(deliver.StateRef("changes"), w.Rev(deliver.StateRef("changes")), human)
	if genuine == "" {
		t.Fatal("no genuine state")
	}
	w.job("", "")
	_, stderr := w.ralph(3, "check", "--deliver", "pr")
	contains(t, "check on the forged state", stderr, "is not bound to its commit by ralph-ci's own ralph-ci/state status")

	before = w.rotations()
	w.job("", "")
	_, stderr = w.ralph(0, "run", "--deliver", "pr")
	contains(t, "run on the forged state", stderr, "treated as no state and the specs are verified again")
	if n := w.rotations() - before; n != 3 {
		t.Fatalf("run on the forged state called the agent %d times, want 3 (verified again)", n)
	}
	// The state it pushed is its own again: the gate passes.
	w.job("", "")
	w.ralph(0, "check", "--deliver", "pr")
}

func TestForgedShardRef(t *testing.T) {
	w := newCIWorld(t, ralphBinary(t), autoFiles())
	shard := deliver.ShardRef("changes", "1-of-1")

	// Control: the genuine shard state is integrated; nothing is left to do.
	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr", "--shard", "1-of-1")
	genuine := w.Rev(shard)
	before := w.rotations()
	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr", "--integrate")
	if n := w.rotations() - before; n != 0 {
		t.Fatalf("the integration of the genuine shard called the agent %d times", n)
	}
	if w.Rev(shard) != "" {
		t.Fatal("the integrated shard state was not deleted")
	}

	// A person pushes an unverified commit and re-parents the genuine
	// shard state onto it: folded in, it would say the spec is 3/3 at the
	// new head (the branch's genuine state describes the older one).
	human := w.personPushes()
	w.forge(shard, genuine, human)
	before = w.rotations()
	w.job("", "")
	_, stderr := w.ralph(0, "run", "--deliver", "pr", "--integrate")
	contains(t, "the integration of the forged shard", stderr, "refs/ralph-ci/shards/1-of-1/changes", "(not integrated)")
	// The branch's genuine state holds: 3/3 before the person's push,
	// which drops it to 2/3, and one verification pass brings it back.
	if n := w.rotations() - before; n != 1 {
		t.Fatalf("the integration of the forged shard called the agent %d times, want 1 (verified again on the new head)", n)
	}
	w.job("", "")
	w.ralph(0, "check", "--deliver", "pr")
}
