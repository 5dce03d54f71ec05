package actions_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

// fixedRand makes tokens and delimiters predictable: every byte is 0x5a.
type fixedRand struct{}

func (fixedRand) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0x5a
	}
	return len(p), nil
}

// simulatedEnv is a simulated Actions environment: the workspace is a temporary
// folder holding the repository at repo/, summary and output files in it.
func simulatedEnv(t *testing.T) (actions.Env, string) {
	t.Helper()
	ws := t.TempDir()
	return actions.Env{
		Actions:     true,
		StepSummary: filepath.Join(ws, "summary.md"),
		Output:      filepath.Join(ws, "output.txt"),
		Workspace:   ws,
	}, filepath.Join(ws, "repo")
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReportGolden(t *testing.T) {
	env, root := simulatedEnv(t)
	var stdout bytes.Buffer
	g := &actions.GitHub{
		Env: env, Stdout: &stdout, Root: root, Rand: fixedRand{},
		JUnit: filepath.Join(root, ".ralph/reports/junit.xml"), JSON: filepath.Join(root, ".ralph/reports/report.json"),
	}
	if err := g.Report(context.Background(), reportstest.Report()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "summary.golden.md", read(t, env.StepSummary))
	golden.Check(t, "output.golden.txt", read(t, env.Output))
	golden.Check(t, "annotations.golden.txt", stdout.Bytes())
}

func TestReportAppends(t *testing.T) {
	env, root := simulatedEnv(t)
	if err := os.WriteFile(env.StepSummary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &actions.GitHub{Env: env, Root: root}
	if err := g.Report(context.Background(), reportstest.Report()); err != nil {
		t.Fatal(err)
	}
	if s := string(read(t, env.StepSummary)); !strings.HasPrefix(s, "earlier step\n### ralph-ci run") {
		t.Errorf("summary does not append to the earlier content:\n%.100s", s)
	}
}

func TestOutsideActionsDoesNothing(t *testing.T) {
	env, root := simulatedEnv(t)
	env.Actions = false
	var stdout bytes.Buffer
	if err := (&actions.GitHub{Env: env, Stdout: &stdout, Root: root}).Report(context.Background(), reportstest.Report()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{env.StepSummary, env.Output} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s written outside Actions", f)
		}
	}
	if stdout.Len() > 0 {
		t.Errorf("annotations outside Actions: %q", stdout.String())
	}
}

func TestEnvFrom(t *testing.T) {
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/s", "GITHUB_OUTPUT": "/o", "GITHUB_WORKSPACE": "/w"}
	got := actions.EnvFrom(func(k string) string { return vars[k] })
	want := actions.Env{Actions: true, StepSummary: "/s", Output: "/o", Workspace: "/w"}
	if got != want {
		t.Errorf("EnvFrom = %+v, want %+v", got, want)
	}
	if actions.EnvFrom(func(string) string { return "" }).Actions {
		t.Error("Actions without GITHUB_ACTIONS=true")
	}
}

func TestSummaryLimit(t *testing.T) {
	r := reportstest.Report()
	long := strings.Repeat("x", 2000)
	for i := range 3000 {
		s := r.Specs[1]
		s.Path = "specs/" + long[:i%50] + ".spec.md"
		r.Specs = append(r.Specs, s)
	}
	for i := range r.Specs {
		r.Specs[i].Reason = long
	}
	s := actions.Summary(r)
	if len(s) > 1<<20 {
		t.Errorf("summary is %d bytes, over GitHub's 1 MiB", len(s))
	}
	if !strings.Contains(s, "| PROMPT.md |") {
		t.Error("summary lost its first row")
	}
}

var _ reporters.Reporter = (*actions.GitHub)(nil)
