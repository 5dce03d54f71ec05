package job

import (
	"context"
	"fmt"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// Channel is where checkpoints go: the pull request of the GitHub
// Actions event when there is one, else the terminal.
func (j *Session) Channel(ctx context.Context, p *project.Project) (gate.Channel, error) {
	pr, ok, err := j.PullRequest()
	if err != nil {
		return nil, err
	}
	if !ok {
		return gate.Local{Root: p.Root, Out: j.Stdout}, nil
	}
	c, err := j.PRChannel(p, pr)
	if err != nil {
		return nil, err
	}
	if err := j.baseDiscovery(ctx, p, c); err != nil {
		return nil, err
	}
	// A pull request may raise a spec's tier, not lower it: a spec that
	// was verify on the base commit keeps its checkpoint, also when the
	// pull request moved it (the channel's RaiseTiers). Before anything
	// uses the tiers (run's loop, the gate).
	c.RaiseTiers(ctx, p.Specs, gate.RepoPrefix(p.Root))
	p.KeepVerify()
	return c, nil
}

// PRChannel is the channel of pull request pr (p's config says who may
// approve: see PROptions; nil for none loaded), on the job's one GitHub
// client.
func (j *Session) PRChannel(p *project.Project, pr int) (*prchannel.Client, error) {
	repo, err := j.Repo()
	if err != nil {
		return nil, err
	}
	o := j.PROptions(p)
	o.PR = pr
	return prchannel.New(repo, o), nil
}

// Sweeper is the repository side of check off a single pull request (a
// schedule, a merge group), on the job's one GitHub client.
func (j *Session) Sweeper(p *project.Project) (*prchannel.Sweeper, error) {
	repo, err := j.Repo()
	if err != nil {
		return nil, err
	}
	return prchannel.NewSweeper(repo, j.PROptions(p), p.Config, gate.RepoPrefix(p.Root)), nil
}

// PROptions are the options of a pull request's channel (PR aside): who
// may approve comes from the base commit's config unless the loaded one
// lies outside the checkout (gate.ApprovalConfig).
func (j *Session) PROptions(p *project.Project) prchannel.Options {
	if p == nil {
		return prchannel.Options{Login: j.Env.PR.Login, Log: j.Log, Actions: j.Env.Actions, Stdout: j.Stdout}
	}
	files, trusted := gate.ApprovalConfig(p.Root, p.ConfigPath, j.Config == "")
	if trusted {
		j.Log.Info().Str("config", p.ConfigPath).Msg("the config lies outside the repository's checkout, so it did not come from the pull request: its github section (who may approve) is used as given")
	}
	return prchannel.Options{Login: j.Env.PR.Login, Config: p.Config.GitHub, ConfigFiles: files, TrustConfig: trusted,
		DefaultTier: p.Config.Specs.DefaultTier, Specs: p.Config.Specs, Log: j.Log, Actions: j.Env.Actions, Stdout: j.Stdout}
}

// baseDiscovery discovers the specs of the checkout again with the base
// commit's specs.dirs and specs.prompt when the pull request changed
// them: a pull request must not hide a spec from the gate by pointing
// discovery elsewhere. The base's section unknown: the checkout's stands
// (the tiers still fail closed).
func (j *Session) baseDiscovery(ctx context.Context, p *project.Project, c *prchannel.Client) error {
	base, ok := c.BaseSpecs(ctx)
	if !ok {
		return nil
	}
	own := p.Config.Specs
	again, err := p.Rediscover(base)
	if again {
		j.Log.Warn().Strs("dirs", own.Dirs).Strs("base_dirs", base.Dirs).Str("prompt", own.Prompt).Str("base_prompt", base.Prompt).
			Msg("the pull request's own specs.dirs and specs.prompt are ignored: which specs exist is decided with the config on its base commit, so that a pull request cannot hide a spec from the gate")
	}
	if err != nil {
		return exitcode.New(exitcode.Usage, fmt.Errorf("the specs as the base commit's config discovers them: %w", err))
	}
	return nil
}
