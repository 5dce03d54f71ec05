// Package publish hands a finished report to every reporter a run asked
// for: the JUnit XML and JSON files and, in GitHub Actions, the job
// summary, step outputs and annotations. It is the one call the commands
// make at the end of a run (Write); the reporters themselves live in
// reporters/junit, reporters/jsonreport and reporters/actions.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/jsonreport"
	"github.com/ralph-ci/ralph-ci/reporters/junit"
)

// Reporter names, for ByName.
const (
	NameJSON   = "json"
	NameJUnit  = "junit"
	NameGitHub = "github"
)

// Names lists the reporters ByName knows, in the order New runs them: the
// files first, so that the GitHub step outputs name files that exist.
var Names = []string{NameJSON, NameJUnit, NameGitHub}

// Targets says which reports to write.
type Targets struct {
	// Root is the repository root: relative report paths and the spec
	// paths of annotations are resolved against it ("" is the current
	// folder).
	Root string
	// JUnit is the JUnit XML file to write ("" for none).
	JUnit string
	// JSON is the JSON report file to write ("" for none).
	JSON string
	// GitHub writes the job summary, step outputs and annotations when
	// the environment is GitHub Actions (actions.Env.Actions).
	GitHub bool
}

// path resolves a report path against the root.
func (t Targets) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.Root, p)
}

// ByName returns the reporter called name, configured from t: "json"
// writes t.JSON, "junit" writes t.JUnit, and "github" reports to GitHub
// Actions through env, with annotations on stdout. A file reporter whose
// path is empty, or an unknown name, is an error.
func ByName(name string, t Targets, env actions.Env, stdout io.Writer) (reporters.Reporter, error) {
	switch name {
	case NameJSON:
		if t.JSON == "" {
			return nil, fmt.Errorf("reporter json: no file to write")
		}
		return &jsonreport.JSON{Path: t.path(t.JSON)}, nil
	case NameJUnit:
		if t.JUnit == "" {
			return nil, fmt.Errorf("reporter junit: no file to write")
		}
		return &junit.JUnit{Path: t.path(t.JUnit)}, nil
	case NameGitHub:
		return &actions.GitHub{Env: env, Stdout: stdout, Root: t.Root, JUnit: t.path(t.JUnit), JSON: t.path(t.JSON)}, nil
	}
	return nil, fmt.Errorf("unknown reporter %q; known: %s", name, strings.Join(Names, ", "))
}

// New returns the reporters t asks for, in the order of Names; none when
// t asks for nothing.
func New(t Targets, env actions.Env, stdout io.Writer) (reporters.Multi, error) {
	var m reporters.Multi
	for _, name := range Names {
		switch {
		case name == NameJSON && t.JSON == "",
			name == NameJUnit && t.JUnit == "",
			name == NameGitHub && !t.GitHub:
			continue
		}
		rep, err := ByName(name, t, env, stdout)
		if err != nil {
			return nil, err
		}
		m = append(m, rep)
	}
	return m, nil
}

// Write publishes r to every target of t: the report files (atomically,
// creating their folders; a relative path must not lead out of t.Root
// through a symbolic link, such as a committed .ralph/reports link) and, when t.GitHub is set and env is GitHub
// Actions, the job summary, step outputs and annotations (on stdout).
// Every target is attempted; the errors are joined.
func Write(ctx context.Context, r *report.Report, t Targets, env actions.Env, stdout io.Writer) error {
	if r == nil {
		return fmt.Errorf("publish reports: no report")
	}
	var refused []error
	for _, p := range []*string{&t.JUnit, &t.JSON} {
		if *p == "" || filepath.IsAbs(*p) {
			continue // none, or a path the user gave as it is
		}
		if err := safefile.Inside(t.Root, t.path(*p)); err != nil {
			refused = append(refused, fmt.Errorf("publish reports: %w", err))
			*p = "" // the other targets are still written
		}
	}
	m, err := New(t, env, stdout)
	if err != nil {
		return fmt.Errorf("publish reports: %w", err)
	}
	return errors.Join(append(refused, m.Report(ctx, r))...)
}
