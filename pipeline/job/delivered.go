package job

import (
	"context"
	"os"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// DeliveredState is the loop's state where the job's mode keeps it: the
// branch's, from git, in a mode whose state travels there (plan, and a
// shard that plans again), else the checkout's .ralph.
func (j *Trusted) DeliveredState(ctx context.Context, p *project.Project) (state.State, error) {
	if j.Mode.State != deliver.StateInGit {
		return state.Load(state.At(p.Root))
	}
	g := deliver.Git{Dir: p.Root}
	t, _, err := j.Target(ctx, g, p.Config)
	if err != nil {
		return state.State{}, err
	}
	tmp, err := os.MkdirTemp("", "ralph-ci-plan-")
	if err != nil {
		return state.State{}, err
	}
	defer os.RemoveAll(tmp)
	defer j.UseGitCredential(ctx, p.Root)()
	bd, err := j.StateBinder()
	if err != nil {
		return state.State{}, err
	}
	r, err := deliver.ReadState(ctx, g, bd, t.Branch, tmp)
	if err != nil {
		return state.State{}, err
	}
	if r.State != "" && !r.Bound {
		j.Log.Warn().Msg(deliver.Unbound(r.Ref, r.Binding))
	}
	return state.Load(state.Dir(tmp))
}
