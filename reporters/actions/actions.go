// Package actions reports a run in GitHub Actions' own places: the job
// summary ($GITHUB_STEP_SUMMARY), step outputs ($GITHUB_OUTPUT) and
// workflow-command annotations on the spec files. It also has the
// workflow-command helpers the engine uses while a run goes on: log groups
// and ::stop-commands:: fences around agent output.
//
// Nothing here reads the process environment: the caller passes an Env
// (EnvFrom(os.Getenv) at the edge), so tests use temporary files.
package actions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
)

// GitHub is the Reporter for GitHub Actions. When Env.Actions is false it
// does nothing.
type GitHub struct {
	Env Env
	// Stdout receives the annotations (the step's log).
	Stdout io.Writer
	// Root is the repository root that spec paths are relative to ("" is
	// the current folder); annotations point at Root/spec relative to the
	// workspace.
	Root string
	// JUnit and JSON are the report files written ("" for none), given as
	// paths relative to the current folder or absolute; the step outputs
	// name them relative to the workspace.
	JUnit, JSON string
	// Rand is the source of output delimiters (nil: crypto/rand).
	Rand io.Reader
}

var _ reporters.Reporter = (*GitHub)(nil)

// Report appends the job summary and the step outputs to their files
// (when Env names them) and writes the annotations to Stdout. Each part is
// attempted even if another fails.
func (g *GitHub) Report(ctx context.Context, r *report.Report) error {
	if !g.Env.Actions {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var errs []error
	if g.Env.StepSummary != "" {
		err := appendFile(g.Env.StepSummary, func(w io.Writer) error {
			_, err := io.WriteString(w, Summary(r))
			return err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("github: job summary: %w", err))
		}
	}
	if g.Env.Output != "" {
		outputs := Outputs(r, g.reportPath(g.JUnit), g.reportPath(g.JSON))
		err := appendFile(g.Env.Output, func(w io.Writer) error { return WriteOutputs(w, outputs, g.Rand) })
		if err != nil {
			errs = append(errs, fmt.Errorf("github: step outputs: %w", err))
		}
	}
	if g.Stdout != nil {
		for _, a := range g.Annotations(r) {
			if err := WriteAnnotation(g.Stdout, a); err != nil {
				errs = append(errs, fmt.Errorf("github: %w", err))
				break
			}
		}
	}
	return errors.Join(errs...)
}

func (g *GitHub) reportPath(p string) string {
	if p == "" {
		return ""
	}
	return g.Env.workspacePath(p)
}

// Annotations are the annotations of a report: an error on each failed or
// stuck spec, a warning on each pending or awaiting one (all at line 1 of
// the spec file), and one for the run when its exit class is not
// explained by those: an error for failure, usage, agents_exhausted,
// interrupted, escalated or an unknown class, a warning for limits or
// rejected.
func (g *GitHub) Annotations(r *report.Report) []Annotation {
	var out []Annotation
	for _, s := range r.Specs {
		a := Annotation{File: g.Env.workspacePath(filepath.Join(g.Root, filepath.FromSlash(s.Path))), Line: 1}
		counter := reporters.Counter(s.Counter)
		switch s.Outcome {
		case report.SpecFailed, report.SpecStuck:
			a.Level = LevelError
			a.Title = fmt.Sprintf("ralph-ci: %s %s at %s", s.Path, s.Outcome, counter)
			a.Message = fmt.Sprintf("%s: %s at stage %s, counter %s", s.Path, s.Outcome, s.Stage, counter)
		case report.SpecPending:
			a.Level = LevelWarning
			a.Title = fmt.Sprintf("ralph-ci: %s unverified at %s", s.Path, counter)
			a.Message = fmt.Sprintf("%s: not verified yet: stage %s, counter %s; run ralph-ci again to continue", s.Path, s.Stage, counter)
		case report.SpecAwaiting:
			a.Level = LevelWarning
			a.Title = fmt.Sprintf("ralph-ci: %s awaits its checkpoint", s.Path)
			a.Message = fmt.Sprintf("%s: verified %s; its verify-tier checkpoint on the pull request awaits a human answer", s.Path, counter)
		default:
			continue
		}
		if s.Reason != "" {
			a.Message += "\nreason: " + s.Reason
		}
		out = append(out, a)
	}
	switch r.Exit.Class {
	case "done", "stuck", "awaiting_human":
	case "limits", "rejected":
		out = append(out, Annotation{Level: LevelWarning, Title: "ralph-ci: " + r.Exit.Class, Message: r.Exit.Message})
	default:
		out = append(out, Annotation{Level: LevelError, Title: "ralph-ci: " + r.Exit.Class, Message: r.Exit.Message})
	}
	return out
}
