package main

import (
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/reporters/prchannel"
)

// checkpointChannel is where checkpoints go: the pull request of the
// GitHub Actions event when there is one, else the terminal.
func checkpointChannel(ctx context.Context, opts *globalOptions, p *project.Project) (gate.Channel, error) {
	pr, ok, err := opts.env.pr.PullRequest()
	if err != nil {
		return nil, err
	}
	if !ok {
		return gate.Local{Root: p.Root, Out: opts.stdout}, nil
	}
	o := prOptions(opts, p)
	o.PR = pr
	c, err := prchannel.New(o)
	if err != nil {
		return nil, err
	}
	// A pull request may raise a spec's tier, not lower it: a spec that
	// was verify on the base commit keeps its checkpoint (the channel's
	// RaiseTiers). Before anything uses the tiers (run's loop, the gate).
	c.RaiseTiers(ctx, p.Specs, gate.RepoPrefix(p.Root))
	return c, nil
}

// prOptions are the options of a pull request's channel (PR aside): who
// may approve comes from the base commit's config unless the loaded one
// lies outside the checkout (gate.ApprovalConfig).
func prOptions(opts *globalOptions, p *project.Project) prchannel.Options {
	files, trusted := gate.ApprovalConfig(p.Root, p.ConfigPath, opts.config == "")
	if trusted {
		opts.log.Info().Str("config", p.ConfigPath).Msg("the config lies outside the repository's checkout, so it did not come from the pull request: its github section (who may approve) is used as given")
	}
	return prchannel.Options{Env: opts.env.pr, Config: p.Config.GitHub, ConfigFiles: files, TrustConfig: trusted,
		DefaultTier: p.Config.Specs.DefaultTier, Log: opts.log, Actions: opts.env.actions, Stdout: opts.stdout}
}
