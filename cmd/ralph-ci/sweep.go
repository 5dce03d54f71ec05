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
func checkSweep(ctx context.Context, opts *globalOptions, p *project.Project, wait time.Duration) error {
	if wait > 0 {
		opts.log.Warn().Dur("wait", wait).Msg("--wait is ignored on a schedule: each pull request is read once, the next scheduled run reads again")
	}
	pulls, err := prchannel.NewSweeper(prOptions(opts, p), p.Config, gate.RepoPrefix(p.Root))
	if err != nil {
		return err
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
