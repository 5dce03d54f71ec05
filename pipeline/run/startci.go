package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
)

// dispatcher starts a workflow with the workflow_dispatch API
// (github/pulls), a small interface for the GitHub port.
type dispatcher interface {
	Dispatch(ctx context.Context, workflow, ref string) error
}

// startCI asks GitHub to run delivery.ci_workflows on the branch ralph-ci
// pushed, after its last push, when the mode starts CI after a push
// (deliver.CIAfterPush) and a push of this run moved the branch: a push
// made with the job's token starts no workflow, so without this (or a
// push-token) the repository's required checks never run on the head
// ralph-ci delivered; a run that pushed nothing new starts nothing. It
// says which runs it started in the log and the job summary.
func (d *delivery) startCI(ctx context.Context, j *job.Trusted) error {
	s := d.session
	if j.Mode.CI != deliver.CIAfterPush || !s.Push || s.Head() == "" || len(d.ciWorkflows) == 0 || j.Env.PR.Repository == "" {
		return nil
	}
	if s.Head() == d.start {
		j.Log.Info().Strs("workflows", d.ciWorkflows).Str("head", s.Head()).Msg("delivery.ci_workflows: not dispatched, this run moved no branch head (its CI ran on that head already)")
		return nil
	}
	if j.Env.PushToken != "" {
		j.Log.Info().Strs("workflows", d.ciWorkflows).Msg("delivery.ci_workflows: not dispatched, the push-token's push starts the repository's workflows itself")
		return nil
	}
	c, err := j.Forge()
	if err != nil {
		return err
	}
	var started []string
	var errs []string
	for _, wf := range d.ciWorkflows {
		if err := dispatcher(c).Dispatch(ctx, wf, s.Target.Branch); err != nil {
			j.Log.Error().Err(err).Str("workflow", wf).Msg("delivery: could not start the workflow")
			errs = append(errs, err.Error())
			continue
		}
		started = append(started, wf)
		j.Log.Info().Str("workflow", wf).Str("ref", s.Target.Branch).Str("head", s.Head()).Msg("delivery: started the workflow on the pushed branch (workflow_dispatch)")
	}
	if len(started) > 0 {
		text := fmt.Sprintf("\n### ralph-ci started CI on `%s`\n\nworkflow_dispatch on the pushed branch (head `%.7s`): %s\n", s.Target.Branch, s.Head(), "`"+strings.Join(started, "`, `")+"`")
		if err := j.Env.Actions.AppendSummary(text); err != nil {
			j.Log.Warn().Err(err).Msg("cannot write the job summary")
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("delivery.ci_workflows: %s", strings.Join(errs, "; "))
	}
	return nil
}
