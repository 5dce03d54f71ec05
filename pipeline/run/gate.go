package run

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
)

// endGate sets the one status at the end of run r, which ended with code
// and oc, on a pull request: its head is the one delivery pushed (pr
// mode), else the pull request's; the specs count as verified there only
// when the loop's work was delivered to it (pr mode) or the loop changed
// nothing the head lacks.
func (r *ran) endGate(ctx context.Context, code exitcode.Code, oc outcome) {
	j, p, ch, dl, st := r.s, r.p, r.ch, r.dl, &oc.State
	g, ok := ch.(prchannel.GateKeeper)
	if !ok || code.Class() == "interrupted" {
		return
	}
	pushed := dl != nil && dl.session.Push
	s := gate.Standing{Head: g.Head()}
	if pushed {
		s.Head = cmp.Or(dl.session.Head(), s.Head)
	}
	s.Failed = gate.RunFailed(code, oc.err, oc.Message)
	var removals []plan.Spec
	if c, ok := ch.(*prchannel.Client); ok {
		removals = c.Removals()
	}
	s.Unverified = gate.Unverified(p.Specs, st)
	if len(s.Unverified) == 0 && !pushed && dirty(ctx, p.Root) {
		s.Unverified = []string{"the loop's work is not on the pull request (delivery.mode: pr pushes it)"}
	}
	if len(removals) > 0 && keepAccepted(ctx, g, p, s, st) {
		return
	}
	s.Checkpoints = gate.CheckpointsIn(p.Specs, st, s.Head, removals)
	j.SetGate(ctx, p.Config, g, s)
}

// keepAccepted tells whether run must leave the gate as it is: run does
// not judge removal checkpoints (check does, confirmed with GitHub), so
// when all but the removals passes and ralph-ci's own gate status on this
// very head is already success (check accepted the removals for it), a
// run must not turn it back to pending.
func keepAccepted(ctx context.Context, g prchannel.GateKeeper, p *project.Project, s gate.Standing, st *state.State) bool {
	s.Checkpoints = gate.CheckpointsIn(p.Specs, st, s.Head, nil)
	if gate.Judge(s).State != gate.Success {
		return false
	}
	state, _, err := g.GateOn(ctx, s.Head, prchannel.GateContext(p.Config))
	return err == nil && state == gate.Success
}

// dirty tells whether the checkout at root has changes git tracks or
// would track (.ralph/ aside): work of the loop's that no commit holds.
// Unknown (not a git repository) counts as dirty.
func dirty(ctx context.Context, root string) bool {
	out, err := deliver.Git{Dir: root}.Run(ctx, "status", "--porcelain", "--", ".", ":(exclude).ralph")
	return err != nil || strings.TrimSpace(out) != ""
}
