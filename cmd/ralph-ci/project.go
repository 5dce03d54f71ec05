package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

// loadProject loads the config and specs, printing every problem (and,
// on GitHub Actions, annotating its line).
func loadProject(opts *globalOptions) (*project.Project, error) {
	return loadProjectSpecs(opts, false)
}

// loadProjectSpecs is loadProject; with noSpecsOK a repository without
// specs is loaded with none (check on a schedule: the default branch has
// no specs before a pull request brings them).
func loadProjectSpecs(opts *globalOptions, noSpecsOK bool) (*project.Project, error) {
	p, err := project.Load(opts.dir, opts.config)
	if none := (*discovery.NoSpecsError)(nil); noSpecsOK && p != nil && errors.As(err, &none) {
		opts.log.Info().Str("reason", err.Error()).Msg("no specs in the checkout: the pull requests' own specs are read at their heads")
		err = nil
	}
	var problems schema.Problems
	if errors.As(err, &problems) {
		for _, p := range problems {
			fmt.Fprintln(opts.stdout, p)
			if opts.env.actions.Actions { // an annotation on the line in the pull request
				_ = actions.WriteAnnotation(opts.stdout, actions.Annotation{Level: actions.LevelError, File: filepath.ToSlash(filepath.Join(opts.dir, p.File)), Line: p.Line, Col: p.Col, Title: "ralph-ci: " + p.Path, Message: p.Msg})
			}
		}
		opts.log.Error().Int("problems", len(problems)).Msg("fix the problems above (ralph-ci check)")
		return nil, exitcode.Printed(exitcode.Usage, problems)
	}
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	for _, w := range p.Warnings {
		opts.log.Warn().Msg(w)
	}
	return p, nil
}

// findSpec finds a spec by path (as check lists it) or id.
func findSpec(p *project.Project, name string) (plan.Spec, bool) {
	for _, sp := range p.Specs {
		if sp.Path == name || sp.ID == name {
			return sp, true
		}
	}
	return plan.Spec{}, false
}
