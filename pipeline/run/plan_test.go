package run

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
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/matrix"
)

// TestPlan: plan prints every spec in exactly one shard, and the step
// outputs in GitHub Actions; fewer than one shard is a usage error.
func TestPlan(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh]}\n", "specs/a.spec.md": "# A\n", "specs/b.spec.md": "# B\n", "specs/c.spec.md": "# C\n"}
	ghorigin.WriteFiles(t, dir, files)
	var stdout bytes.Buffer
	j := &job.Session{Dir: dir, Stdout: &stdout, Log: zerolog.Nop()}
	j.Env.Actions.Output = filepath.Join(t.TempDir(), "output")
	if err := Plan(context.Background(), job.Open(j), PlanOptions{Shards: 2}); err != nil {
		t.Fatal(err)
	}
	var m struct{ Include []matrix.Entry }
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
