package check

import (
	"context"
	"errors"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// TestAnswerRefuses: answer is for a laptop, for a spec that exists and
// has a checkpoint; anything else is a usage error that says so.
func TestAnswerRefuses(t *testing.T) {
	dir := write(t, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh]}\nspecs: {default_tier: auto}\n",
		"specs/a.spec.md": "# A\n",
	})
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request": {"number": 3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, spec, event, want string
	}{
		{"on a pull request", "specs/a.spec.md", event, "pull request #3: there a checkpoint is answered on the pull request"},
		{"no such spec", "specs/b.spec.md", "", "specs/b.spec.md: no such spec"},
		{"auto tier", "specs/a.spec.md", "", "specs/a.spec.md is of the auto tier: it has no human checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, _ := newJob(dir)
			if tc.event != "" {
				j.Env.PR.EventName, j.Env.PR.EventPath, j.Env.PR.Repository = "pull_request", tc.event, "o/r"
			}
			err := Answer(context.Background(), job.Open(j), tc.spec, []string{"1"})
			var ue *exitcode.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Answer: %v, want a usage error saying %q", err, tc.want)
			}
		})
	}
}
