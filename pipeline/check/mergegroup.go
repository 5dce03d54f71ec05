package check

import (
	"context"
	"errors"
	"fmt"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// mergeGroup is check on a merge_group event: it sets the one `ralph-ci`
// status on the group's commit (gate.QueueVerdict) from the open pull
// requests whose head the group contains (and the one its branch is named
// after), each judged by ralph-ci's own `ralph-ci` status on that head.
// No agent runs, no checkpoint is posted. Exit 0 when the group passes,
// else 1 with the reason.
func mergeGroup(ctx context.Context, j *job.Session, p *project.Project, mg prchannel.MergeGroup) error {
	sw, err := j.Sweeper(p)
	if err != nil {
		return err
	}
	pulls, err := sw.OpenPulls(ctx)
	if err != nil {
		return err
	}
	c, name := sw.Client(), prchannel.GateContext(p.Config)
	var members []gate.Member
	for _, pr := range pulls {
		in, err := c.Contains(ctx, pr.Head, mg.HeadSHA)
		if err != nil {
			return err
		}
		if !in && pr.Number != mg.PR {
			if in, err = c.OlderIn(ctx, pr, mg.HeadSHA); err != nil {
				return err
			}
			if !in {
				continue // not in this group
			}
			in = false // an older commit of it is: its head moved
		}
		state, _, err := c.GateOn(ctx, pr.Head, name)
		if err != nil {
			return err
		}
		members = append(members, gate.Member{PR: pr.Number, Head: pr.Head, Contained: in, Gate: state})
		fmt.Fprintf(j.Stdout, "#%d\t%s\tcontained=%v\t%s=%s\n", pr.Number, pr.Head, in, name, state)
	}
	v := gate.QueueVerdict(members)
	if err := c.Gate(ctx, mg.HeadSHA, name, j.Env.RunURL(), v); err != nil {
		return err
	}
	if v.State == gate.Success {
		j.Log.Info().Str("group", mg.HeadSHA).Msg(v.Description)
		return nil
	}
	j.Log.Warn().Str("group", mg.HeadSHA).Msg(v.Description)
	return exitcode.Printed(exitcode.Failure, errors.New("merge group: "+v.Description))
}
