package prchannel

import (
	"context"
	"fmt"
	"path"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Which specs have a human checkpoint (the verify tier) must not be
// decided by the pull request either: its own spec files and config could
// flip a spec to auto (contracts: [{verification: auto}], or
// specs.default_tier: auto) and skip the checkpoint. So on a pull request
// a spec's tier may be raised but not lowered (gate.RaisedTier): it is
// verify when it is verify on the pull request's head OR was verify on its
// base commit (gate.BaseTier). The
// base's tier is that of the spec file at the same path on the base, read
// through the contents API and resolved with the base config's
// specs.default_tier (read by trust):
//
//   - the spec is on the base: its tier there (verify > auto, a spec
//     without contracts taking the base's default);
//   - the spec is not on the base (404, new in the pull request): a spec
//     that declares no contracts takes the base's default; one that
//     declares contracts keeps their tier (a new spec may be auto);
//   - the spec or the base's config cannot be read (403, a 5xx after the
//     retries, invalid, no base commit known) when its tier depends on
//     it: verify (fail closed), with a warning.
//
// Each spec whose tier the pull request tried to lower is named in a
// warning.

// RaiseTiers applies that rule to specs in place (their Tier only). prefix
// is the directory of the specs' root in the repository ("" at its top,
// else slash-separated with a trailing slash): the spec's path on the base
// is prefix+Path. It reads the pull request (and settles who may approve,
// as Read does).
func (c *Client) RaiseTiers(ctx context.Context, specs []plan.Spec, prefix string) {
	if !c.trusted {
		pr, _, err := c.api.PullRequests.Get(ctx, c.owner, c.repo, c.pr)
		if err != nil {
			for i := range specs {
				if specs[i].Tier != plan.TierVerify {
					c.log.Warn().Err(err).Str("spec", specs[i].Path).Msgf("cannot read pull request #%d, so the spec's tier on its base commit is unknown: it is treated as verify (fail closed)", c.pr)
					specs[i].Tier = plan.TierVerify
				}
			}
			return
		}
		c.head, c.prAuthor = pr.GetHead().GetSHA(), pr.GetUser().GetLogin()
		c.trust(ctx, pr)
	}
	for i := range specs {
		sp := &specs[i]
		if sp.Tier == plan.TierVerify {
			continue // raising needs no base
		}
		base, why := c.baseTierOf(ctx, prefix+sp.Path, sp.Front)
		head := sp.Tier
		var warning string
		if sp.Tier, warning = gate.RaisedTier(head, base, why); warning != "" {
			ev := c.log.Warn().Str("spec", sp.Path).Str("base", c.base).Str("head_tier", head)
			if why != "" {
				ev = ev.Str("reason", why)
			} else {
				ev = ev.Str("base_tier", base)
			}
			ev.Msg(warning)
		}
	}
	c.departures(ctx, specs, prefix)
}

// baseTierOf is the tier of the spec at file on the base commit; fm is its
// front matter on the head (for a spec new in the pull request). why says
// why it cannot be known ("" when it can).
func (c *Client) baseTierOf(ctx context.Context, file string, fm *schema.FrontMatter) (tier, why string) {
	def := c.baseTier
	if c.trustGiven && def == "" {
		def = gate.DefaultTier()
	}
	if c.base == "" {
		return "", "the pull request's base commit is unknown"
	}
	src, found, err := c.fileAt(ctx, file, c.base)
	if err == nil && !found { // new in the pull request
		if fm == nil {
			fm = &schema.FrontMatter{}
		}
		return gate.BaseTier(def, fm.Contracts)
	}
	if err != nil {
		return "", fmt.Sprintf("cannot read %s on the base commit (the job needs `contents: read`): %s", file, oneLine(err))
	}
	base, err := schema.LoadFrontMatter(path.Base(file), src)
	if err != nil {
		return "", fmt.Sprintf("%s on the base commit is invalid: %s", file, oneLine(err))
	}
	return gate.BaseTier(def, base.Contracts)
}
