package job

import (
	"cmp"
	"context"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/schema"
)

// GateKeeper is what the one merge-gate status needs of a pull request's
// channel (prchannel.Client): set it, read back ralph-ci's own, and the
// head it judges.
type GateKeeper interface {
	Gate(ctx context.Context, sha, context, targetURL string, v gate.Verdict) error
	GateOn(ctx context.Context, sha, context string) (state, description string, err error)
	Head() string
}

var _ GateKeeper = (*prchannel.Client)(nil)

// GateContext is the one status's context: github.status_context.
func GateContext(cfg *schema.Config) string {
	if cfg == nil {
		return prchannel.DefaultGateContext
	}
	return cmp.Or(cfg.GitHub.StatusContext, prchannel.DefaultGateContext)
}

// SetGate judges s (gate.Judge) and sets the one status on its head, with
// the workflow run as target. A status that cannot be set is logged: the
// exit code still says where things stand.
func (j *Session) SetGate(ctx context.Context, cfg *schema.Config, g GateKeeper, s gate.Standing) {
	s.Head = cmp.Or(s.Head, g.Head())
	if s.Head == "" {
		return
	}
	if err := g.Gate(context.WithoutCancel(ctx), s.Head, GateContext(cfg), j.Env.RunURL(), gate.Judge(s)); err != nil {
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
