package check

import (
	"context"
	"os"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// delivered reads what the merge gate's rule for a delivered state
// (deliver.GateDeliveredState, gate.Delivered) judges: the pull request's
// head, and the loop's state saved in git for its head branch. It
// returns the head and why the rule does not hold (nothing when it does,
// or under a mode whose gate asks for another rule).
func delivered(ctx context.Context, j *job.Trusted, p *project.Project) (string, []string, error) {
	if j.Mode.Gate != deliver.GateDeliveredState {
		return "", nil, nil
	}
	ev, err := j.Event(ctx)
	if err != nil || ev.PR == 0 {
		return "", nil, err
	}
	c, err := j.Forge()
	if err != nil {
		return "", nil, err
	}
	head, err := c.Head(ctx, ev.PR)
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "ralph-ci-state-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	defer j.UseGitCredential(ctx, p.Root)()
	r, err := deliver.ReadState(ctx, deliver.Git{Dir: p.Root}, c.WithLogin(j.Env.PR.Login), head.Ref, tmp)
	if err != nil {
		return "", nil, err
	}
	st, err := state.Load(state.Dir(tmp))
	if err != nil {
		return "", nil, err
	}
	why := gate.Delivered(p.Specs, &st, r.Found(), r.Described, head.Ref, head.SHA)
	if r.State != "" && !r.Bound {
		why = []string{deliver.Unbound(r.Ref, r.Binding)}
	}
	if len(why) == 0 {
		j.Log.Info().Str("head", head.SHA).Msg("every spec is verified 3/3 at the pull request's head")
	}
	return head.SHA, why, nil
}
