package publish_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/jsonreport"
	"github.com/ralph-ci/ralph-ci/reporters/publish"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

// TestActionsRun simulates a run in GitHub Actions: the environment
// variables a runner sets, its summary and output files, and a repository
// in the workspace. Everything must land: both report files, the job
// summary, the step outputs and the annotations.
func TestActionsRun(t *testing.T) {
	ws := t.TempDir()
	root := filepath.Join(ws, "repo")
	summary, output := filepath.Join(ws, "step_summary"), filepath.Join(ws, "output")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_OUTPUT", output)
	t.Setenv("GITHUB_WORKSPACE", ws)

	var stdout bytes.Buffer
	targets := publish.Targets{Root: root, JUnit: ".ralph/reports/junit.xml", JSON: ".ralph/reports/report.json", GitHub: true}
	if err := publish.Write(context.Background(), reportstest.Report(), targets, actions.EnvFrom(os.Getenv), &stdout); err != nil {
		t.Fatal(err)
	}

	if _, err := jsonreport.ReadFile(filepath.Join(root, ".ralph/reports/report.json")); err != nil {
		t.Errorf("JSON report: %v", err)
	}
	var suites struct {
		Tests int `xml:"tests,attr"`
	}
	if b, err := os.ReadFile(filepath.Join(root, ".ralph/reports/junit.xml")); err != nil || xml.Unmarshal(b, &suites) != nil || suites.Tests == 0 {
		t.Errorf("JUnit report: %v, %d tests", err, suites.Tests)
	}
	contains(t, summary, "### ralph-ci run: 2 of 5 specs verified, 1 awaiting a human", "| specs/api/auth.spec.md | 0/3 | 🛑 stuck |", "<details>")
	contains(t, output, "status=stuck\n", "verified=2\n", "awaiting=1\n", "junit=repo/.ralph/reports/junit.xml\n", "json=repo/.ralph/reports/report.json\n")
	for _, want := range []string{
		"::error file=repo/specs/api/auth.spec.md,line=1,",
		"::error file=repo/specs/api/users.spec.md,line=1,",
		"::warning file=repo/specs/web/ui.spec.md,line=1,",
		"::warning file=repo/.ralph/specs/billing.spec.md,line=1,",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks annotation %q:\n%s", want, stdout.String())
		}
	}
}

func contains(t *testing.T, path string, wants ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s lacks %q:\n%s", filepath.Base(path), w, b)
		}
	}
}

func TestByName(t *testing.T) {
	targets := publish.Targets{JUnit: "j.xml", JSON: "r.json"}
	tests := []struct {
		name    string
		targets publish.Targets
		wantErr string
	}{
		{name: "json", targets: targets},
		{name: "junit", targets: targets},
		{name: "github", targets: targets},
		{name: "json", wantErr: "reporter json: no file to write"},
		{name: "junit", wantErr: "reporter junit: no file to write"},
		{name: "tap", targets: targets, wantErr: `unknown reporter "tap"; known: json, junit, github`},
	}
	for _, tc := range tests {
		t.Run(tc.name+tc.wantErr, func(t *testing.T) {
			rep, err := publish.ByName(tc.name, tc.targets, actions.Env{}, nil)
			switch {
			case tc.wantErr == "" && (err != nil || rep == nil):
				t.Errorf("ByName = %v, %v; want a reporter", rep, err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("ByName error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestNewPicksTargets(t *testing.T) {
	tests := []struct {
		targets publish.Targets
		want    int
	}{
		{publish.Targets{}, 0},
		{publish.Targets{JSON: "r.json"}, 1},
		{publish.Targets{JUnit: "j.xml", GitHub: true}, 2},
		{publish.Targets{JUnit: "j.xml", JSON: "r.json", GitHub: true}, 3},
	}
	for _, tc := range tests {
		m, err := publish.New(tc.targets, actions.Env{}, nil)
		if err != nil || len(m) != tc.want {
			t.Errorf("New(%+v) = %d reporters, %v; want %d", tc.targets, len(m), err, tc.want)
		}
	}
}

// A failing target does not stop the others.
func TestWriteKeepsGoing(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	targets := publish.Targets{Root: dir, JSON: "file/report.json", JUnit: "out/junit.xml"}
	err := publish.Write(context.Background(), reportstest.Report(), targets, actions.Env{}, nil)
	if err == nil || !strings.Contains(err.Error(), "json report: write report") {
		t.Errorf("Write error = %v, want the JSON report's", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out/junit.xml")); err != nil {
		t.Errorf("JUnit not written after the JSON report failed: %v", err)
	}
}
