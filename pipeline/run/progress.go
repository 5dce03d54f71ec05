package run

import (
	"context"
	"time"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/spend"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// DefaultProgressInterval is the least time between two edits of the
// progress comment (the final one always goes out).
const DefaultProgressInterval = 10 * time.Second

// progressComment is run's progress comment on its pull request.
type progressComment struct {
	keeper       *prchannel.Progress
	j            *job.Session
	maxRotations int
	budgetUSD    float64
	prCap        spend.Cap // budgets.per_pull_request
}

// newProgressComment is the progress comment of a run on a pull request
// (ch a prchannel.Client), nil when github.progress_comment is off or
// there is no pull request.
func newProgressComment(j *job.Session, p *project.Project, ch gate.Channel, maxRotations int, every time.Duration) *progressComment {
	c, ok := ch.(*prchannel.Client)
	if !ok || !p.Config.GitHub.ProgressComment {
		return nil
	}
	if maxRotations == 0 {
		maxRotations = p.Config.Budgets.MaxRotations
	}
	pc := &progressComment{keeper: c.Progress(every), j: j, maxRotations: maxRotations, budgetUSD: p.Config.Budgets.CostUSD}
	if c := p.Config.Budgets.PerPullRequest; c != nil {
		pc.prCap = spend.Cap{Scope: spend.PullRequest, Key: "budgets.per_pull_request", USD: c.CostUSD, Tokens: c.Tokens}
	}
	return pc
}

// update shows where the run stands, and the pull request (its loop's
// state: st.Iteration rotations, st.Spend) against its budgets; ended is how it ended ("" while it
// runs, which an interval throttles). A failure is logged: the progress
// comment never stops the loop.
func (pc *progressComment) update(ctx context.Context, rotations int, costUSD float64, specs []plan.Spec, st *state.State, ended string) {
	if pc == nil {
		return
	}
	v := prchannel.ProgressView{Rotations: rotations, MaxRotations: pc.maxRotations, CostUSD: costUSD, BudgetUSD: pc.budgetUSD,
		PRRotations: st.Iteration, PRSpend: st.Spend, PRCap: pc.prCap, RunURL: pc.j.Env.RunURL(), Ended: ended}
	for _, r := range engine.Rows(specs, *st) {
		v.Rows = append(v.Rows, prchannel.ProgressRow{Spec: r.Path, Counter: r.Counter, Stage: r.Stage, LastStatus: r.LastStatus, Tier: r.Tier, Changed: r.ModifiedFiles})
		if ss := st.Spec(r.Path); ss != nil && ss.Checkpoint != nil && ss.Checkpoint.Status == tiers.StatusPending {
			v.Waiting = append(v.Waiting, r.Path)
		}
	}
	if err := pc.keeper.Update(context.WithoutCancel(ctx), prchannel.ProgressBody(v), ended != ""); err != nil {
		pc.j.Log.Warn().Err(err).Msg("the progress comment could not be updated")
	}
}
