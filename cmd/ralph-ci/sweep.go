package main

import (
	"context"
	"time"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// checkSweep is the merge-gate part of check on an event without a pull
// request (schedule, workflow_dispatch): it reads the checkpoints of the
// open pull requests, at most github.max_pull_requests of them, one pass
// each (gate.Sweep), prints and summarizes where each stands and maps that
// to the exit code (gate.Swept.Code).
//
// On pull_request_target (only) the same judge reads the event's pull
// request alone: its specs at its head through the API, its tiers and
// approvers from the base, so that a fork's pull request is judged
// without checking out or running anything of the fork's.
func checkSweep(ctx context.Context, opts *globalOptions, p *project.Project, wait time.Duration) error {
	if wait > 0 {
		opts.log.Warn().Dur("wait", wait).Msg("--wait is ignored on a schedule: each pull request is read once, the next scheduled run reads again")
	}
	sw, err := prchannel.NewSweeper(prOptions(opts, p), p.Config, gate.RepoPrefix(p.Root))
	if err != nil {
		return err
	}
	var pulls gate.Pulls = sw
	if opts.env.pr.EventName == "pull_request_target" {
		n, _, err := opts.env.pr.PullRequest()
		if err != nil {
			return err
		}
		pulls = onePull{sw, n}
	}
	out, err := gate.Sweep{Pulls: pulls, Limit: p.Config.GitHub.MaxPullRequests, Turn: opts.env.pr.RunNumber,
		RateLimited: prchannel.RateLimited, Log: opts.log, Judged: func(ctx context.Context, pr gate.Pull, ch gate.Channel, res gate.Result, err error) {
			g, ok := ch.(gateKeeper)
			if !ok {
				return
			}
			s := gate.Standing{Head: g.Head(), Checkpoints: res, Failed: err}
			if err == nil {
				s.Unverified, s.Failed = verifiedEarlier(ctx, g, s.Head, gateContext(p.Config))
			}
			setGate(ctx, opts, p.Config, g, s)
		}}.Run(ctx)
	if err != nil {
		return err
	}
	if err := opts.env.actions.AppendSummary(actions.SweepSummary(out)); err != nil {
		opts.log.Warn().Err(err).Msg("cannot write the job summary")
	}
	code, msg := out.Code()
	return standings(opts, out.Lines(), code, msg)
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
