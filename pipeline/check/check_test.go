package check

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/schema"
)

// write makes the files under a new directory and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	ghorigin.WriteFiles(t, dir, files)
	return dir
}

func newJob(dir string) (*job.Session, *bytes.Buffer) {
	var stdout bytes.Buffer
	return &job.Session{Dir: dir, Stdout: &stdout, Log: zerolog.Nop(), Version: "test"}, &stdout
}

// TestRunListsSpecsAndWarns: check of a valid project on a laptop lists
// each spec with its tier, stages and methods, warns about an agent that
// is not installed, and exits 0 (no verify-tier spec waits).
func TestRunListsSpecsAndWarns(t *testing.T) {
	dir := write(t, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [no-such-agent-cli]}\nstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"specs/a.spec.md": "# A\n",
	})
	j, stdout := newJob(dir)
	if err := Run(context.Background(), job.Open(j), Options{Every: DefaultPollInterval}); err != nil {
		t.Fatalf("check: %v\n%s", err, stdout)
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "specs/a.spec.md\ttier=auto\tstages=coder\tmethods=") {
		t.Errorf("stdout %q: want the spec's line first", out)
	}
	if !strings.Contains(out, "warning: ") || !strings.Contains(out, "no-such-agent-cli") {
		t.Errorf("stdout %q: want a warning about the missing agent CLI", out)
	}
}

// TestRunConfigProblem: a broken config is exit 2, its problem printed.
func TestRunConfigProblem(t *testing.T) {
	dir := write(t, map[string]string{"ralph.yaml": "agents: [\n", "specs/a.spec.md": "# A\n"})
	j, stdout := newJob(dir)
	err := Run(context.Background(), job.Open(j), Options{Every: DefaultPollInterval})
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(stdout.String(), "ralph.yaml") {
		t.Fatalf("check: %v (exit %d), stdout %q: want exit 2 naming ralph.yaml", err, exitcode.Of(err), stdout)
	}
}

// TestGateRefusesNoInterval: --poll-interval must be positive.
func TestGateRefusesNoInterval(t *testing.T) {
	j, _ := newJob(t.TempDir())
	p := &project.Project{Root: j.Dir, Config: &schema.Config{}}
	var ue *exitcode.UsageError
	if err := Gate(context.Background(), &job.Trusted{Session: job.Open(j)}, p, Options{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--poll-interval") {
		t.Fatalf("Gate: %v, want a usage error about --poll-interval", err)
	}
}
