package job

import (
	"context"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/schema"
)

// SetGate judges s and sets the one status on its head, with the
// workflow run as target (prchannel.SetGate). A status that cannot be
// set is logged: the exit code still says where things stand.
func (j *Session) SetGate(ctx context.Context, cfg *schema.Config, g prchannel.GateKeeper, s gate.Standing) {
	if err := prchannel.SetGate(ctx, g, cfg, j.Env.RunURL(), s); err != nil {
		j.Log.Warn().Err(err).Msg("the merge-gate status could not be set")
	}
}

// BrokenGate sets the one status to failure on the event's pull request
// when the config or a spec cannot be loaded (no config: its default
// context).
func (j *Session) BrokenGate(ctx context.Context, err error) {
	pr, ok, perr := j.PullRequest()
	if perr != nil || !ok {
		return
	}
	c, cerr := j.PRChannel(nil, pr)
	if cerr == nil {
		cerr = c.ReadHead(ctx)
	}
	if cerr != nil {
		j.Log.Warn().Err(cerr).Msg("the merge-gate status could not be set")
		return
	}
	j.SetGate(ctx, nil, c, gate.Standing{Failed: exitcode.New(exitcode.Of(err), err)})
}
