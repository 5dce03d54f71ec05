package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/shards"
)

// TestPartCheck: a job is a shard or the integration, only with delivery
// pr, and its shard is spelled K-of-N.
func TestPartCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		part      Part
		mode      deliver.Mode
		wantErr   string // "": valid
		wantShard string
	}{
		{"whole run", Part{}, mode("none"), "", ""},
		{"shard", Part{Shard: "2/4"}, mode("pr"), "", "2-of-4"},
		{"integration", Part{Integrate: true}, mode("pr"), "", ""},
		{"specs without a shard", Part{Specs: []string{"a"}}, mode("pr"), "--specs needs --shard K-of-N", ""},
		{"both", Part{Shard: "1-of-2", Integrate: true}, mode("pr"), "a job is a shard or the integration", ""},
		{"shard off pr", Part{Shard: "1-of-2"}, mode("commit"), "need a delivery whose state travels in git", ""},
		{"integration off pr", Part{Integrate: true}, mode("none"), "need a delivery whose state travels in git", ""},
		{"bad name", Part{Shard: "3-of-2"}, mode("pr"), "3-of-2", ""},
		{"shard on its own branch", Part{Shard: "1-of-2"}, mode("branch"), "", "1-of-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.part.Check(tc.mode)
			var ue *exitcode.UsageError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Check: %v, want none", err)
			case tc.wantErr != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Check: %v, want a usage error saying %q", err, tc.wantErr)
			case tc.wantErr == "" && tc.part.Shard != tc.wantShard:
				t.Errorf("shard %q, want %q", tc.part.Shard, tc.wantShard)
			}
		})
	}
}

func mode(name string) deliver.Mode {
	m, err := deliver.ModeNamed(name)
	if err != nil {
		panic(err)
	}
	return m
}

// TestJSON: the plan is a strategy.matrix whose specs are one CSV record
// (a path with a comma stays one path).
func TestJSON(t *testing.T) {
	raw, err := JSON([]shards.Shard{{Name: "1-of-2", Specs: []string{"a.md", "b,c.md"}}, {Name: "2-of-2", Specs: []string{"d.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"include":[{"shard":"1-of-2","specs":"a.md,\"b,c.md\"","count":2},{"shard":"2-of-2","specs":"d.md","count":1}]}`
	if string(raw) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", raw, want)
	}
}

// TestPlan: plan prints every spec in exactly one shard, and the step
// outputs in GitHub Actions; fewer than one shard is a usage error.
func TestPlan(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh]}\n", "specs/a.spec.md": "# A\n", "specs/b.spec.md": "# B\n", "specs/c.spec.md": "# C\n"}
	ghorigin.WriteFiles(t, dir, files)
	var stdout bytes.Buffer
	j := &job.Job{Dir: dir, Stdout: &stdout, Log: zerolog.Nop()}
	j.Env.Actions.Output = filepath.Join(t.TempDir(), "output")
	if err := Plan(context.Background(), job.Open(j), PlanOptions{Shards: 2}); err != nil {
		t.Fatal(err)
	}
	var m struct{ Include []Entry }
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil || len(m.Include) != 2 {
		t.Fatalf("plan printed %q (%v), want 2 shards", stdout.String(), err)
	}
	seen := map[string]int{}
	for _, e := range m.Include {
		for _, sp := range strings.Split(e.Specs, ",") {
			seen[sp]++
		}
	}
	for _, sp := range []string{"specs/a.spec.md", "specs/b.spec.md", "specs/c.spec.md"} {
		if seen[sp] != 1 {
			t.Errorf("%s is in %d shards, want 1 (%v)", sp, seen[sp], m.Include)
		}
	}
	out, err := os.ReadFile(j.Env.Actions.Output)
	if err != nil || !strings.Contains(string(out), "shards") || !strings.Contains(string(out), "matrix") {
		t.Errorf("step outputs %q (%v): want matrix and shards", out, err)
	}
	var ue *exitcode.UsageError
	if err := Plan(context.Background(), job.Open(j), PlanOptions{Shards: 0}); !errors.As(err, &ue) {
		t.Errorf("--shards 0: %v, want a usage error", err)
	}
}
