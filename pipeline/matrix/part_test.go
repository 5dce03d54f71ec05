package matrix

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// prTarget is the target of ghorigin's pull request #7.
var prTarget = deliver.Target{Branch: "feature", PR: 7, DefaultBranch: "main"}

// prepared is a pull request job of o, on its head branch, and its
// session.
func prepared(t *testing.T, o *ghorigin.Origin) (string, *deliver.Session) {
	t.Helper()
	dir := o.PRJob()
	g := deliver.Git{Dir: dir}
	if _, err := deliver.Prepare(context.Background(), g, prTarget); err != nil {
		t.Fatal(err)
	}
	return dir, &deliver.Session{Git: g, StateDir: filepath.Join(dir, ".ralph"), Target: prTarget, Push: true, Reports: filepath.Join(dir, ".ralph", "reports")}
}

// TestPrepareShard: a shard keeps the specs it was given, and its state
// goes to its own ref, seeded from the branch's, with a retry per shard
// pushing beside it.
func TestPrepareShard(t *testing.T) {
	o := ghorigin.New(t, "main", "feature", 7, map[string]string{"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh]}\n"},
		map[string]string{"specs/a.spec.md": "# A\n", "specs/b.spec.md": "# B\n"})
	dir, s := prepared(t, o)
	p, err := project.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	m := &Part{Shard: "2/3", Specs: []string{"specs/b.spec.md"}}
	if err := m.Check(mode("pr")); err != nil {
		t.Fatal(err)
	}
	j := &job.Session{Dir: dir, Log: zerolog.Nop()}
	if err := m.Prepare(context.Background(), job.Open(j), j.Log, p, mode("pr"), s); err != nil {
		t.Fatal(err)
	}
	if len(p.Specs) != 1 || p.Specs[0].Path != "specs/b.spec.md" {
		t.Errorf("specs %v, want specs/b.spec.md alone", p.Specs)
	}
	if s.StateRef != deliver.ShardRef("feature", "2-of-3") || s.SeedRef != deliver.StateRef("feature") || s.Retries != 9 {
		t.Errorf("session: state ref %s, seed %s, retries %d", s.StateRef, s.SeedRef, s.Retries)
	}
}

// TestIntegrate: the integration folds every shard's state into the
// project's, has the session adopt it, and drops the shards' refs once the
// integrated state is pushed, not before.
func TestIntegrate(t *testing.T) {
	ctx := context.Background()
	o := ghorigin.New(t, "main", "feature", 7, map[string]string{"README.md": "hello\n"}, map[string]string{"spec.md": "the spec\n"})
	for _, shard := range []string{"1-of-2", "2-of-2"} {
		dir, s := prepared(t, o)
		s.StateRef, s.SeedRef = deliver.ShardRef("feature", shard), deliver.StateRef("feature")
		if _, err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		ghorigin.WriteFiles(t, dir, map[string]string{
			".ralph/state.json": `{"version":1,"iteration":1,"specs":[{"path":"` + shard + `.spec.md","done_count":1,"last_status":"DONE","last_hash":"h"}]}`,
			shard + ".txt":      "work\n",
		})
		if _, err := s.AfterRotation(ctx, deliver.Rotation{Spec: shard + ".spec.md", Stage: "coder", Iteration: 1, Status: "DONE", Counter: "1/3"}); err != nil {
			t.Fatal(err)
		}
	}
	dir, s := prepared(t, o)
	m := &Part{Integrate: true}
	j := &job.Session{Dir: dir, Log: zerolog.Nop()}
	if err := m.Prepare(ctx, job.Open(j), j.Log, &project.Project{Root: dir}, mode("pr"), s); err != nil {
		t.Fatal(err)
	}
	st, err := state.Load(state.At(dir))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, ss := range st.Specs {
		paths = append(paths, ss.Path)
	}
	if !slices.Equal(paths, []string{"1-of-2.spec.md", "2-of-2.spec.md"}) || !s.Adopt {
		t.Fatalf("integrated specs %q (adopted %v), want both shards'", paths, s.Adopt)
	}
	shardRefs := func() string {
		return ghorigin.Git(t, o.Bare, "for-each-ref", "--format=%(refname)", deliver.ShardRefPrefix)
	}
	if err := m.Finish(ctx, s.Git, false); err != nil || shardRefs() == "" {
		t.Fatalf("not pushed: %v, shard refs %q, want them kept", err, shardRefs())
	}
	if err := m.Finish(ctx, s.Git, true); err != nil || shardRefs() != "" {
		t.Fatalf("pushed: %v, shard refs %q, want none", err, shardRefs())
	}
	if _, err := os.Stat(m.tmp); !os.IsNotExist(err) {
		t.Errorf("the integration's folder %s is left (%v)", m.tmp, err)
	}
}
