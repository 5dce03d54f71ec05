package check

import (
	"bytes"
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/reporters/checkreport"
)

// fill sets the specs and the warnings of a loaded project.
func fill(r *checkreport.Report, p *project.Project, warnings []string) {
	r.Config, r.Valid = p.ConfigPath, true
	for _, s := range p.Specs {
		r.Specs = append(r.Specs, checkreport.Spec{Path: s.Path, Tier: string(s.Tier), Stages: s.StageNames(), Methods: s.Methods()})
	}
	r.Warnings = append(r.Warnings, warnings...)
}

// runJSON is check --json: check run with what it prints kept, then one
// JSON document on stdout (checkreport). The exit code is the same as
// without --json.
func runJSON(ctx context.Context, j *job.Session, o Options) error {
	rep := checkreport.New()
	var printed bytes.Buffer
	err := run(ctx, j.WithStdout(&printed), o, rep)
	rep.End(err, printed.String())
	if jerr := rep.Write(j.Stdout); jerr != nil && err == nil {
		return jerr
	}
	return err
}
