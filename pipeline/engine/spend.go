package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/spend"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

// spending is the run's account of what its agents spent (see
// pipeline/spend): the price table, this run's spend, the day's ledger
// when budgets.per_day is set, and the caps that stopped something.
type spending struct {
	table  spend.Table
	run    spend.Amount
	ledger *spend.Ledger
	day    *spend.Amount // the day's spend, as last read or settled
	// pr records the pull request's spend in ralph-ci's own statuses
	// (budgets.per_pull_request on GitHub; see spend.PullRequestRecord).
	pr    *spend.PullRequestRecord
	stops []report.CapStop
	// halt is the cap that stops the run (run, pull_request or day
	// scope), once one did.
	halt *spend.Stop
}

// capOf is a config cap as a spend cap (unset: no bound).
func capOf(scope spend.Scope, key string, c *schema.Cap) spend.Cap {
	if c == nil {
		return spend.Cap{Scope: scope, Key: key}
	}
	return spend.Cap{Scope: scope, Key: key, USD: c.CostUSD, Tokens: c.Tokens}
}

// startSpending reads the price table, opens the day's ledger and, with
// budgets.per_pull_request on GitHub, raises the pull request's spend to
// what ralph-ci's own statuses record.
func (e *engine) startSpending(ctx context.Context) {
	b := e.opts.Project.Config.Budgets
	prices := make(map[string]spend.Price, len(b.Prices))
	for m, p := range b.Prices {
		prices[m] = spend.Price(p)
	}
	e.spend.table = spend.WithOverrides(prices)
	if d := b.PerDay; d != nil {
		e.spend.ledger = &spend.Ledger{
			Store: &spend.GitRef{Git: deliver.Git{Dir: e.root}, Remote: d.Remote, Now: time.Now, Proof: e.opts.SpendProof},
			Cap:   capOf(spend.Day, "budgets.per_day", &d.Cap),
			Owner: e.runID, TTL: 2 * time.Hour, Now: time.Now,
		}
	}
	e.startPullRequestSpend(ctx)
}

// stateRefNamer is an ability a Deliverer may have: the state ref of the
// branch it delivers to.
type stateRefNamer interface{ BranchStateRef() string }

// startPullRequestSpend sets the pull request's spend to the more of its
// state's and what ralph-ci's own statuses record; a negative spend in
// the state, or a record that cannot be read, counts as the cap reached.
func (e *engine) startPullRequestSpend(ctx context.Context) {
	c := capOf(spend.PullRequest, "budgets.per_pull_request", e.opts.Project.Config.Budgets.PerPullRequest)
	reached := func(why string) {
		s := c.StopAt("cost_usd", e.st.Spend)
		s.Saved = "counted as reached: " + why
		e.spend.halt = s
		e.log.Error().Str("cap", c.Key).Msg("the pull request's spend: " + why + ": counted as the cap reached")
	}
	if c.Set() && (e.st.Spend.USD < 0 || e.st.Spend.Tokens < 0) {
		reached(fmt.Sprintf("the state records a negative spend (%s)", e.st.Spend))
		return
	}
	n, ok := e.opts.Deliverer.(stateRefNamer)
	if !c.Set() || e.opts.SpendProof == nil || !ok || n.BranchStateRef() == "" {
		return
	}
	e.spend.pr = &spend.PullRequestRecord{Git: deliver.Git{Dir: e.root}, Remote: "origin", StateRef: n.BranchStateRef(), Proof: e.opts.SpendProof}
	floor, err := e.spend.pr.Floor(ctx)
	if err != nil {
		reached(err.Error())
		return
	}
	if spent, raised := spend.Above(e.st.Spend, floor); raised {
		e.log.Warn().Str("state", e.st.Spend.String()).Str("recorded", floor.String()).
			Msg("the pull request's spend in its state is below what ralph-ci's own statuses record (the state ref was deleted, rolled back or not bound): counting the record")
		e.st.Spend = spent
	}
}

// modelOf is the model an agent's tokens are priced as when its CLI
// names none: its configured model, else the codex preset's default.
func modelOf(a schema.Agent) string {
	if a.Model == "" && a.Format == "codex" {
		return "gpt-5.5"
	}
	return a.Model
}

// runLimits are the caps that bound the run as a whole, with what their
// scope spent so far.
func (e *engine) runLimits() []spend.Limit {
	b := e.opts.Project.Config.Budgets
	return []spend.Limit{
		{Cap: spend.Cap{Scope: spend.Run, Key: "budgets.cost_usd/tokens", USD: b.CostUSD, Tokens: b.Tokens}, Before: e.spend.run},
		{Cap: capOf(spend.PullRequest, "budgets.per_pull_request", b.PerPullRequest), Before: e.st.Spend},
	}
}

// spendReached is the cap of the run, its state or the day that is
// already reached before a rotation, if any.
func (e *engine) spendReached(ctx context.Context) *spend.Stop {
	if e.spend.halt != nil {
		return e.spend.halt
	}
	for _, l := range e.runLimits()[1:] { // the run's own: limitReached
		if m, ok := l.Reached(l.Before); ok {
			return l.StopAt(m, l.Before)
		}
	}
	if l := e.spend.ledger; l != nil {
		spent, held, err := l.Spent(ctx)
		if err != nil {
			return e.dayUnread(err)
		}
		e.spend.day = &spent
		if m, ok := l.Cap.Reached(spent.Add(held)); ok {
			s := l.Cap.StopAt(m, spent)
			if _, byOthers := l.Cap.Reached(spent); !byOthers {
				s.Saved = "the rest of the day is held by other jobs running now"
			}
			return s
		}
	}
	return nil
}

// dayUnread is the stop of a day whose ledger could not be read or
// written, or is not proven (spend.ErrUnproven): the day's cap counts as
// reached, never as nothing spent.
func (e *engine) dayUnread(err error) *spend.Stop {
	l := e.spend.ledger
	measure := "cost_usd"
	if l.Cap.USD == 0 {
		measure = "tokens"
	}
	s := l.Cap.StopAt(measure, spend.Amount{})
	s.Saved = "counted as reached: " + err.Error()
	e.log.Error().Err(err).Str("cap", l.Cap.Key).Msg("the day's spend ledger: counted as the cap reached")
	return s
}

// specReached takes a spec out of the loop when its cap is reached, and
// tells whether it did.
func (e *engine) specReached(ss *state.SpecState) bool {
	c := capOf(spend.Spec, "budgets.per_spec", e.opts.Project.Config.Budgets.PerSpec)
	m, ok := c.Reached(ss.Spend)
	if ok && ss.Excluded == "" {
		ss.Excluded = c.StopAt(m, ss.Spend).Message()
	}
	return ok
}

// meter is the spend meter of one agent run of a rotation of ss: every
// cap, with what its scope spent before. With budgets.per_day it holds a
// share of the day first; no share left is a stop before the agent runs.
func (e *engine) meter(ctx context.Context, ss *state.SpecState, a schema.Agent) (*spend.Meter, *spend.Stop) {
	b := e.opts.Project.Config.Budgets
	m := &spend.Meter{Table: e.spend.table, Model: modelOf(a)}
	limits := append([]spend.Limit{
		{Cap: capOf(spend.Rotation, "budgets.per_rotation", b.PerRotation)},
		{Cap: capOf(spend.Spec, "budgets.per_spec", b.PerSpec), Before: ss.Spend},
	}, e.runLimits()...)
	if l := e.spend.ledger; l != nil {
		held, ok, err := l.Hold(ctx)
		switch {
		case err != nil:
			return nil, e.dayUnread(err)
		case !ok:
			spent, _, _ := l.Spent(ctx)
			measure := "cost_usd"
			if l.Cap.USD == 0 {
				measure = "tokens"
			}
			s := l.Cap.StopAt(measure, spent)
			s.Saved = "the rest of the day is held by other jobs running now"
			return nil, s
		default:
			limits = append(limits, spend.Limit{Cap: held, Extend: func() (spend.Cap, bool) {
				c, ok, err := l.Hold(ctx)
				if err != nil {
					e.log.Warn().Err(err).Msg("could not hold more of the day's spend")
				}
				return c, ok && err == nil
			}})
		}
	}
	for _, l := range limits {
		if l.Set() {
			m.Limits = append(m.Limits, l)
		}
	}
	return m, nil
}

// settleSpend counts a rotation's spend in every scope, settles it in
// the day's ledger, and applies the cap that stopped it: a spec cap takes
// the spec out of the loop, a cap of the run, the state or the day stops
// the run. It returns the rotation's spend and the stop, for the report.
func (e *engine) settleSpend(ctx context.Context, ss *state.SpecState, m *spend.Meter, res agent.Result, a schema.Agent, iteration int, path string) (spend.Amount, *report.CapStop) {
	amount := e.spend.table.Of(res.Usage, modelOf(a))
	e.spend.run = e.spend.run.Add(amount)
	ss.Spend = ss.Spend.Add(amount)
	e.st.Spend = e.st.Spend.Add(amount)
	if e.spend.pr != nil {
		if err := e.spend.pr.Record(ctx, e.st.Spend); err != nil {
			e.log.Warn().Err(err).Msg("could not record the pull request's spend with ralph-ci's own status")
		}
	}
	if l := e.spend.ledger; l != nil {
		day, err := l.Settle(ctx, amount)
		if err != nil {
			e.spend.halt = e.dayUnread(err)
		} else {
			e.spend.day = &day
		}
	}
	if m == nil || m.Hit == nil || !res.Stopped {
		return amount, nil
	}
	stop := *m.Hit
	if stop.Scope == spend.Day && e.spend.day != nil { // the day's cap and spend, not this job's share
		stop.Limit, stop.Spent = e.spend.ledger.Cap.LimitText(stop.Measure), *e.spend.day
	}
	stop.Saved = fmt.Sprintf("the agent was stopped %s into the rotation, with %s of its %s timeout left", res.Duration.Round(time.Second), (a.Timeout.Std() - res.Duration).Round(time.Second), a.Timeout.Std())
	switch stop.Scope {
	case spend.Spec:
		if ss.Excluded == "" {
			ss.Excluded = stop.Message()
		}
	case spend.Run, spend.PullRequest, spend.Day:
		e.spend.halt = &stop
	}
	rs := reportAmount(amount)
	cs := reportStop(stop)
	cs.Spec, cs.Iteration, cs.Rotation = path, iteration, &rs
	e.spend.stops = append(e.spend.stops, cs)
	e.log.Warn().Str("spec", path).Int("iteration", iteration).Str("cap", stop.Key).Str("spent", stop.Spent.String()).Msg("spend cap reached: the rotation was stopped")
	return amount, &cs
}

// reportAmount is an amount as the report writes it.
func reportAmount(a spend.Amount) report.Amount {
	return report.Amount{USD: a.USD, Tokens: a.Tokens, Unpriced: a.Unpriced, Text: a.USDText()}
}

// reportStop is a stop as the report writes it.
func reportStop(s spend.Stop) report.CapStop {
	return report.CapStop{Scope: string(s.Scope), Key: s.Key, Measure: s.Measure, Limit: s.Limit, Spent: reportAmount(s.Spent), Saved: s.Saved}
}

// spendReport is the report's spend section.
func (e *engine) spendReport() *report.Spend {
	r := &report.Spend{Run: reportAmount(e.spend.run), PullRequest: reportAmount(e.st.Spend), Stops: e.spend.stops}
	if e.spend.day != nil {
		d := reportAmount(*e.spend.day)
		r.Day = &d
	}
	return r
}
