package check

import (
	"context"
	"fmt"
	"time"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
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
func sweepPulls(ctx context.Context, j *job.Session, p *project.Project, wait time.Duration) error {
	if wait > 0 {
		j.Log.Warn().Dur("wait", wait).Msg("--wait is ignored on a schedule: each pull request is read once, the next scheduled run reads again")
	}
	sw, err := j.Sweeper(p)
	if err != nil {
		return err
	}
	var pulls gate.Pulls = sw
	target := 0 // pull_request_target's pull request
	if j.Env.PR.EventName == "pull_request_target" {
		if target, _, err = j.PullRequest(); err != nil {
			return err
		}
		pulls = sw.Only(target)
	}
	out, err := gate.Sweep{Pulls: pulls, Limit: p.Config.GitHub.MaxPullRequests, Turn: j.Env.PR.RunNumber,
		RateLimited: prchannel.RateLimited, Log: j.Log, Judged: func(ctx context.Context, pr gate.Pull, ch gate.Channel, res gate.Result, err error) {
			g, ok := ch.(prchannel.GateKeeper)
			if !ok {
				return
			}
			s := gate.Standing{Head: g.Head(), Checkpoints: res, Failed: err}
			if err == nil {
				s.Unverified, s.Failed = prchannel.VerifiedEarlier(ctx, g, s.Head, p.Config)
			}
			j.SetGate(ctx, p.Config, g, s)
		}}.Run(ctx)
	if err != nil {
		return err
	}
	if target > 0 && !out.Has(target) {
		unjudgedGate(ctx, j, p, target)
	}
	if err := j.Env.Actions.AppendSummary(actions.SweepSummary(sweptView(out))); err != nil {
		j.Log.Warn().Err(err).Msg("cannot write the job summary")
	}
	code, msg := out.Code()
	return j.Shown(out.Lines(), code, msg)
}

// unjudgedGate sets the one merge-gate status on pull request n, which
// the gate was asked about (pull_request_target) but whose head holds no
// checkpoint to judge: nobody ran the loop on it yet, or every checkpoint
// is approved. It is pending while no run verified every spec at its
// head (prchannel.VerifiedEarlier), saying why, and how a fork's gets a run;
// the merge stays blocked on a status that says so, not on a missing one.
func unjudgedGate(ctx context.Context, j *job.Session, p *project.Project, n int) {
	c, err := j.PRChannel(p, n)
	if err == nil {
		err = c.ReadHead(ctx)
	}
	if err != nil {
		j.Log.Warn().Err(err).Int("pr", n).Msg("the merge-gate status could not be set")
		return
	}
	s := gate.Standing{Head: c.Head()}
	s.Unverified, s.Failed = prchannel.VerifiedEarlier(ctx, c, s.Head, p.Config)
	if ev, err := j.Payload(); len(s.Unverified) > 0 && err == nil && ev.Fork() {
		s.Unverified = append(s.Unverified, fmt.Sprintf("a fork's: a maintainer comments %q", deliver.ForkRunCommand))
	}
	j.SetGate(ctx, p.Config, c, s)
}

// sweptView is what the sweep found, as the job summary shows it.
func sweptView(s gate.Swept) actions.Swept {
	code, msg := s.Code()
	v := actions.Swept{Class: code.Class(), Code: int(code), Message: msg, Approved: s.Approved, Left: s.Left}
	if s.Limited != nil {
		v.Limited = s.Limited.Error()
	}
	for _, j := range s.Judged {
		if j.Err != nil {
			v.Rows = append(v.Rows, actions.SweptRow{PR: j.PR, Err: j.Err.Error()})
			continue
		}
		for _, g := range []struct {
			standing string
			specs    []string
		}{{"passed", j.Result.Passed}, {"pending", j.Result.Pending}, {"rejected", j.Result.Rework}, {"escalated", j.Result.Escalated}} {
			for _, sp := range g.specs {
				v.Rows = append(v.Rows, actions.SweptRow{PR: j.PR, Spec: sp, Checkpoint: g.standing})
			}
		}
	}
	return v
}
