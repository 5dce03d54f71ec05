package deliver

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestShardStates: each shard's session pushes its state to its own ref
// (the branch's state ref untouched); FetchShardStates reads them back,
// ignores another branch's, names what each has not seen, and
// DropShardStates deletes them. With none on origin, it finds none.
func TestShardStates(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	probe := Git{Dir: w.PRJob()}
	if _, err := Prepare(ctx, probe, prTarget); err != nil {
		t.Fatal(err)
	}
	if got, err := FetchShardStates(ctx, probe, nil, "feature", t.TempDir()); err != nil || len(got) != 0 {
		t.Fatalf("no shard yet: %v, %v", got, err)
	}
	for _, shard := range []string{"1-of-2", "2-of-2"} {
		dir := w.PRJob()
		s := w.session(dir, prTarget)
		s.StateRef, s.SeedRef = ShardRef("feature", shard), StateRef("feature")
		if _, err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		write(t, dir, ".ralph/state.json", `{"version":1,"iteration":1,"specs":[]}`)
		write(t, dir, shard+".txt", "work\n")
		if _, err := s.AfterRotation(ctx, Rotation{Spec: "spec.md", Stage: "coder", Iteration: 1, Status: "CONTINUE", Counter: "0/3"}); err != nil {
			t.Fatal(err)
		}
	}
	main := w.Push("main", map[string]string{"other.txt": "x\n"}, "main moves")
	git(t, w.Seed, "push", "--quiet", "origin", main+":"+ShardRef("other", "1-of-2")) // another branch's shard
	if w.Rev(StateRef("feature")) != "" {
		t.Fatal("a shard wrote the branch's integrated state ref")
	}
	g := Git{Dir: w.PRJob()}
	if _, err := Prepare(ctx, g, prTarget); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	got, err := FetchShardStates(ctx, g, nil, "feature", root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "1-of-2" || got[1].Name != "2-of-2" || got[0].Dir != filepath.Join(root, "1-of-2") {
		t.Fatalf("shard states %+v", got)
	}
	// Shard 1 pushed before shard 2: it has not seen 2-of-2.txt.
	if !slices.Equal(got[0].Changed, []string{"2-of-2.txt"}) || len(got[1].Changed) != 0 {
		t.Fatalf("unseen files: 1-of-2 %v, 2-of-2 %v", got[0].Changed, got[1].Changed)
	}
	if read(t, got[0].Dir, "state.json") == "" {
		t.Fatal("the shard's state was not restored")
	}
	if err := DropShardStates(ctx, g, got); err != nil {
		t.Fatal(err)
	}
	if out := git(t, w.Bare, "for-each-ref", "--format=%(refname)", ShardRefPrefix); out != ShardRef("other", "1-of-2") {
		t.Fatalf("shard refs left: %q, want only the other branch's", out)
	}
}
