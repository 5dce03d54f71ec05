package main

import (
	"cmp"
	"context"
	"strings"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/schema"
)

// gateKeeper is what the one merge-gate status needs of a pull request's
// channel (prchannel.Client): set it, read back ralph-ci's own, and the
// head it judges.
type gateKeeper interface {
	Gate(ctx context.Context, sha, context, targetURL string, v gate.Verdict) error
	GateOn(ctx context.Context, sha, context string) (state, description string, err error)
	Head() string
}

var _ gateKeeper = (*prchannel.Client)(nil)

// gateContext is the one status's context: github.status_context.
func gateContext(cfg *schema.Config) string {
	if cfg == nil {
		return prchannel.DefaultGateContext
	}
	return cmp.Or(cfg.GitHub.StatusContext, prchannel.DefaultGateContext)
}

// setGate judges s (gate.Judge) and sets the one status on its head, with
// the workflow run as target. A status that cannot be set is logged: the
// exit code still says where things stand.
func setGate(ctx context.Context, opts *globalOptions, cfg *schema.Config, g gateKeeper, s gate.Standing) {
	s.Head = cmp.Or(s.Head, g.Head())
	if s.Head == "" {
		return
	}
	if err := g.Gate(context.WithoutCancel(ctx), s.Head, gateContext(cfg), opts.env.runURL(), gate.Judge(s)); err != nil {
		opts.log.Warn().Err(err).Msg("the merge-gate status could not be set")
	}
}

// brokenGate sets the one status to failure on the event's pull request
// when the config or a spec cannot be loaded (no config: its default
// context).
func brokenGate(ctx context.Context, opts *globalOptions, err error) {
	pr, ok, perr := opts.env.pr.PullRequest()
	if perr != nil || !ok {
		return
	}
	c, cerr := prchannel.New(prchannel.Options{Env: opts.env.pr, PR: pr, Log: opts.log, Actions: opts.env.actions, Stdout: opts.stdout})
	if cerr == nil {
		cerr = c.ReadHead(ctx)
	}
	if cerr != nil {
		opts.log.Warn().Err(cerr).Msg("the merge-gate status could not be set")
		return
	}
	setGate(ctx, opts, nil, c, gate.Standing{Failed: exitcode.New(exitcode.Of(err), err)})
}

// verifiedEarlier says why head is not known to be verified 3/3 (nothing
// when it is): ralph-ci's own gate status on head says so (a run that
// verified every spec there set it, gate.VerifiedNote), which only its
// token can write.
func verifiedEarlier(ctx context.Context, g gateKeeper, head, context string) ([]string, error) {
	state, desc, err := g.GateOn(ctx, head, context)
	if err != nil {
		return nil, err
	}
	if state == gate.Success || strings.HasPrefix(desc, gate.VerifiedNote) {
		return nil, nil
	}
	return []string{"no run of the loop verified every spec at this commit"}, nil
}

// unverified lists the specs st does not hold verified 3/3.
func unverified(specs []plan.Spec, st *state.State) []string {
	var why []string
	for _, sp := range specs {
		if ss := st.Spec(sp.Path); !sp.Removal && (ss == nil || !ss.Verified(sp.Hash)) {
			why = append(why, sp.Path+" is not verified 3/3")
		}
	}
	return why
}

// checkpointsIn is where the verify-tier checkpoints of specs stand in st
// for head (removals are pending: check presents and judges them).
func checkpointsIn(specs []plan.Spec, st *state.State, head string, removals []plan.Spec) gate.Result {
	var r gate.Result
	for _, sp := range specs {
		if sp.Tier != plan.TierVerify {
			continue
		}
		var rec tiers.Record
		if ss := st.Spec(sp.Path); ss != nil && ss.Checkpoint != nil {
			rec = *ss.Checkpoint
		}
		switch {
		case rec.Passed(head):
			r.Passed = append(r.Passed, sp.Path)
		case rec.Status == tiers.StatusEscalated:
			r.Escalated = append(r.Escalated, sp.Path)
		case rec.Status == tiers.StatusRework:
			r.Rework = append(r.Rework, sp.Path)
		default:
			r.Pending = append(r.Pending, sp.Path)
		}
	}
	for _, sp := range removals {
		r.Pending = append(r.Pending, "removal of "+sp.Path)
	}
	return r
}

// runGate sets the one status at the end of a run on a pull request: its
// head is the one delivery pushed (pr mode), else the pull request's; the
// specs count as verified there only when the loop's work was delivered
// to it (pr mode) or the loop changed nothing the head lacks.
func runGate(ctx context.Context, opts *globalOptions, p *project.Project, ch gate.Channel, dl *delivery, code exitcode.Code, runErr error, message string, st *state.State) {
	g, ok := ch.(gateKeeper)
	if !ok || code.Class() == "interrupted" {
		return
	}
	s := gate.Standing{Head: g.Head()}
	if dl != nil && dl.session.Push {
		s.Head = cmp.Or(dl.session.Head(), s.Head)
	}
	switch {
	case runErr != nil:
		s.Failed = runErr
	case code != exitcode.OK && code != exitcode.AwaitHuman && code != exitcode.Rejected && code != exitcode.Escalated:
		s.Failed = exitcode.New(code, errString(message))
	}
	var removals []plan.Spec
	if c, ok := ch.(*prchannel.Client); ok {
		removals = c.Removals()
	}
	s.Unverified = unverified(p.Specs, st)
	if len(s.Unverified) == 0 && (dl == nil || !dl.session.Push) && dirty(ctx, p.Root) {
		s.Unverified = []string{"the loop's work is not on the pull request (delivery.mode: pr pushes it)"}
	}
	if len(removals) > 0 && keepAccepted(ctx, g, p, s, st) {
		return
	}
	s.Checkpoints = checkpointsIn(p.Specs, st, s.Head, removals)
	setGate(ctx, opts, p.Config, g, s)
}

// keepAccepted tells whether run must leave the gate as it is: run does
// not judge removal checkpoints (check does, confirmed with GitHub), so
// when all but the removals passes and ralph-ci's own gate status on this
// very head is already success (check accepted the removals for it), a
// run must not turn it back to pending.
func keepAccepted(ctx context.Context, g gateKeeper, p *project.Project, s gate.Standing, st *state.State) bool {
	s.Checkpoints = checkpointsIn(p.Specs, st, s.Head, nil)
	if gate.Judge(s).State != gate.Success {
		return false
	}
	state, _, err := g.GateOn(ctx, s.Head, gateContext(p.Config))
	return err == nil && state == gate.Success
}

type errString string

func (e errString) Error() string { return string(e) }

// dirty tells whether the checkout at root has changes git tracks or
// would track (.ralph/ aside): work of the loop's that no commit holds.
// Unknown (not a git repository) counts as dirty.
func dirty(ctx context.Context, root string) bool {
	out, err := deliver.Git{Dir: root}.Run(ctx, "status", "--porcelain", "--", ".", ":(exclude).ralph")
	return err != nil || strings.TrimSpace(out) != ""
}
