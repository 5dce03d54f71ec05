package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// pool remembers which agents are rate limited or out of quota, and until
// when (zero: the CLI did not say). The known reset times are kept in the
// state (State.LimitedAgents), so that the next run honours them too.
type pool struct {
	limited map[string]time.Time
	saved   map[string]time.Time // the state's LimitedAgents, kept in step
}

// restore takes the reset times a previous run saved; those already past
// are dropped.
func (p *pool) restore(saved map[string]time.Time, now time.Time) {
	for name, until := range saved {
		if now.Before(until) {
			p.mark(name, until)
		} else {
			delete(saved, name)
		}
	}
}

// bind makes the pool keep the known reset times in saved.
func (p *pool) bind(saved *map[string]time.Time) {
	if *saved == nil {
		*saved = map[string]time.Time{}
	}
	p.saved = *saved
	for name, until := range p.limited {
		if !until.IsZero() {
			p.saved[name] = until
		}
	}
}

// pick returns the first agent of names that is usable now. When none is,
// wait is the time until the earliest known reset (0 if none is known).
func (p *pool) pick(names []string, now time.Time) (name string, wait time.Duration, ok bool) {
	var earliest time.Time
	for _, n := range names {
		until, limited := p.limited[n]
		if !limited || (!until.IsZero() && !now.Before(until)) {
			delete(p.limited, n)
			delete(p.saved, n)
			return n, 0, true
		}
		if !until.IsZero() && (earliest.IsZero() || until.Before(earliest)) {
			earliest = until
		}
	}
	if !earliest.IsZero() {
		wait = earliest.Sub(now)
	}
	return "", wait, false
}

func (p *pool) mark(name string, until time.Time) {
	if p.limited == nil {
		p.limited = map[string]time.Time{}
	}
	p.limited[name] = until
	if p.saved != nil && !until.IsZero() {
		p.saved[name] = until
	}
}

// describe lists the limited agents of names with their reset times.
func (p *pool) describe(names []string) string {
	var parts []string
	for _, n := range names {
		if until := p.limited[n]; until.IsZero() {
			parts = append(parts, n+" (reset time unknown)")
		} else {
			parts = append(parts, fmt.Sprintf("%s (resets %s)", n, until.UTC().Format(time.RFC3339)))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// exhausted reports whether an agent run ended on a rate limit or an
// exhausted quota: the CLI said so and produced no status (a CLI that
// retried and finished its work is not exhausted).
func exhausted(res agent.Result) bool {
	return res.RateLimited && res.Status == status.None && !res.Cancelled
}

// runPool runs the stage's agent pool: when an agent is rate limited the
// next one takes the same rotation; when all are, it waits for the
// earliest known reset if that fits budgets.max_wait (and the wall-time
// budget), else the run stops with the agents-exhausted exit code and
// the rotation is left to be run again by the next invocation.
func (e *engine) runPool(ctx context.Context, names []string, out io.Writer, run func(name string) (agent.Result, error)) (agent.Result, string, error) {
	b := e.opts.Project.Config.Budgets
	e.pool.bind(&e.st.LimitedAgents)
	// What the attempts stopped by a limit cost still counts: it goes with
	// the attempt that takes the rotation, or into the run's total.
	var spent float64
	var spentKnown bool
	for {
		name, wait, ok := e.pool.pick(names, time.Now())
		if !ok {
			fits := wait > 0 && wait <= b.MaxWait.Std()
			if b.WallTime > 0 && time.Since(e.started)+wait > b.WallTime.Std() {
				fits = false
			}
			if !fits {
				e.outcome.CostUSD += spent
				return agent.Result{}, "", exitcode.New(exitcode.Exhausted, fmt.Errorf(
					"every agent of the pool is rate limited or out of quota: %s; the rotation runs again next time (budgets.max_wait is %s)",
					e.pool.describe(names), b.MaxWait.Std()))
			}
			e.log.Warn().Dur("wait", wait).Str("agents", e.pool.describe(names)).Msg("every agent is rate limited: waiting for the earliest reset")
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return agent.Result{Report: agent.Report{}, Cancelled: true}, "", nil
			}
			continue
		}
		res, err := run(name)
		if err == nil && res.StartupFailure != "" && res.Status == status.None && !res.Cancelled {
			// Every rotation would end the same way: the run ends, and
			// the rotation runs again once the agent is fixed.
			e.outcome.CostUSD += spent + res.Usage.CostUSD
			return res, name, fmt.Errorf("agent %s cannot work: %s (exit %d): fix its command or environment in the config; the rotation runs again next time", name, res.StartupFailure, res.ExitCode)
		}
		if err != nil || !exhausted(res) {
			res.Usage.CostUSD += spent
			res.Usage.CostKnown = res.Usage.CostKnown || spentKnown
			return res, name, err
		}
		if res.Usage.CostKnown {
			spent, spentKnown = spent+res.Usage.CostUSD, true
		}
		e.pool.mark(name, res.ResetAt)
		ev := e.log.Warn().Str("agent", name).Str("limit", res.RateLimitMessage)
		if !res.ResetAt.IsZero() {
			ev = ev.Time("reset_at", res.ResetAt)
		}
		ev.Msg("agent rate limited: the next agent of the pool takes this rotation")
		fmt.Fprintf(out, "\n--- ralph-ci: agent %s is rate limited (%s) ---\n", name, res.RateLimitMessage)
	}
}
