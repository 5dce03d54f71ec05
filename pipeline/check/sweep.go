package check

import (
	"context"
	"time"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// sweepPulls is the merge-gate part of check on an event without a pull
// request (schedule, workflow_dispatch): it reads the checkpoints of the
// open pull requests, at most github.max_pull_requests of them, one pass
// each (gate.Sweep), prints and summarizes where each stands and maps that
// to the exit code (gate.Swept.Code).
//
// On pull_request_target (only) the same judge reads the event's pull
// request alone: its specs at its head through the API, its tiers and
// approvers from the base, so that a fork's pull request is judged
// without checking out or running anything of the fork's.
func sweepPulls(ctx context.Context, j *job.Job, p *project.Project, wait time.Duration) error {
	if wait > 0 {
		j.Log.Warn().Dur("wait", wait).Msg("--wait is ignored on a schedule: each pull request is read once, the next scheduled run reads again")
	}
	sw, err := prchannel.NewSweeper(j.PROptions(p), p.Config, gate.RepoPrefix(p.Root))
	if err != nil {
		return err
	}
	var pulls gate.Pulls = sw
	if j.Env.PR.EventName == "pull_request_target" {
		n, _, err := j.Env.PR.PullRequest()
		if err != nil {
			return err
		}
		pulls = onePull{sw, n}
	}
	out, err := gate.Sweep{Pulls: pulls, Limit: p.Config.GitHub.MaxPullRequests, Turn: j.Env.PR.RunNumber,
		RateLimited: prchannel.RateLimited, Log: j.Log, Judged: func(ctx context.Context, pr gate.Pull, ch gate.Channel, res gate.Result, err error) {
			g, ok := ch.(job.GateKeeper)
			if !ok {
				return
			}
			s := gate.Standing{Head: g.Head(), Checkpoints: res, Failed: err}
			if err == nil {
				s.Unverified, s.Failed = job.VerifiedEarlier(ctx, g, s.Head, job.GateContext(p.Config))
			}
			j.SetGate(ctx, p.Config, g, s)
		}}.Run(ctx)
	if err != nil {
		return err
	}
	if err := j.Env.Actions.AppendSummary(actions.SweepSummary(out)); err != nil {
		j.Log.Warn().Err(err).Msg("cannot write the job summary")
	}
	code, msg := out.Code()
	return j.Shown(out.Lines(), code, msg)
}

// onePull is the sweep's repository side narrowed to one pull request.
type onePull struct {
	*prchannel.Sweeper
	number int
}

func (o onePull) OpenPulls(ctx context.Context) ([]gate.Pull, error) {
	all, err := o.Sweeper.OpenPulls(ctx)
	for _, p := range all {
		if p.Number == o.number {
			return []gate.Pull{p}, err
		}
	}
	return nil, err
}
