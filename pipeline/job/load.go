package job

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Load loads the config and specs, printing every problem (and, on
// GitHub Actions, annotating its line).
func (j *Session) Load() (*project.Project, error) {
	return j.load(false)
}

// load is Load; with noSpecsOK a repository without specs is loaded
// with none (check on a schedule: the default branch has no specs before
// a pull request brings them; run on a fork's pull request: the job's
// checkout is the default branch, and the loop's specs are those of the
// pull request's head, which the delivery checks out).
func (j *Session) load(noSpecsOK bool) (*project.Project, error) {
	p, err := project.Load(j.Dir, j.Config)
	if none := (*discovery.NoSpecsError)(nil); noSpecsOK && p != nil && errors.As(err, &none) {
		j.Log.Info().Str("reason", err.Error()).Msg("no specs in the checkout: the pull requests' own specs are read at their heads")
		err = nil
	}
	var problems schema.Problems
	if errors.As(err, &problems) {
		for _, p := range problems {
			fmt.Fprintln(j.Stdout, p)
			if j.Env.Actions.Actions { // an annotation on the line in the pull request
				_ = actions.WriteAnnotation(j.Stdout, actions.Annotation{Level: actions.LevelError, File: filepath.ToSlash(filepath.Join(j.Dir, p.File)), Line: p.Line, Col: p.Col, Title: "ralph-ci: " + p.Path, Message: p.Msg})
			}
		}
		j.Log.Error().Int("problems", len(problems)).Msg("fix the problems above (ralph-ci check)")
		return nil, exitcode.Printed(exitcode.Usage, problems)
	}
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	for _, w := range p.Warnings {
		j.Log.Warn().Msg(w)
	}
	return p, nil
}
