package prchannel

import (
	"cmp"
	"context"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/schema"
)

// GateKeeper is what the one merge-gate status needs of a pull request's
// channel (Client): set it, read back ralph-ci's own, and the head it
// judges.
type GateKeeper interface {
	Gate(ctx context.Context, sha, context, targetURL string, v gate.Verdict) error
	GateOn(ctx context.Context, sha, context string) (state, description string, err error)
	Head() string
}

var _ GateKeeper = (*Client)(nil)

// GateContext is the one status's context: github.status_context (cfg
// nil: no config loaded, the default).
func GateContext(cfg *schema.Config) string {
	if cfg == nil {
		return DefaultGateContext
	}
	return cmp.Or(cfg.GitHub.StatusContext, DefaultGateContext)
}

// SetGate judges s (gate.Judge) and sets the one status on its head (g's
// when s names none; nothing without a head), with the workflow run's
// page runURL as target.
func SetGate(ctx context.Context, g GateKeeper, cfg *schema.Config, runURL string, s gate.Standing) error {
	s.Head = cmp.Or(s.Head, g.Head())
	if s.Head == "" {
		return nil
	}
	return g.Gate(context.WithoutCancel(ctx), s.Head, GateContext(cfg), runURL, gate.Judge(s))
}

// VerifiedEarlier says why head is not known to be verified 3/3 (nothing
// when it is): ralph-ci's own gate status of cfg's context on head says
// so (a run that verified every spec there set it, gate.VerifiedNote),
// which only its token can write.
func VerifiedEarlier(ctx context.Context, g GateKeeper, head string, cfg *schema.Config) ([]string, error) {
	state, desc, err := g.GateOn(ctx, head, GateContext(cfg))
	if err != nil {
		return nil, err
	}
	if state == gate.Success || strings.HasPrefix(desc, gate.VerifiedNote) {
		return nil, nil
	}
	return []string{"no run of the loop verified every spec at this commit"}, nil
}
