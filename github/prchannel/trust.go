package prchannel

import (
	"context"
	"fmt"
	"path"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Who may approve a checkpoint (the config's github section) must not be
// decided by the pull request being approved (see the gate's approve.go):
// on a pull request the checked-out config is the pull request's own,
// which could name its author in github.approvers and turn
// github.ignore_pr_author off. So, unless the config file did not come
// from the pull request (Options.TrustConfig, gate.ApprovalConfig), the
// github section is read from the config as it is on the pull request's
// base commit, through the contents API (which needs only `contents:
// read` and works on shallow checkouts):
//
//   - the base has the file: its github section (the schema's defaults
//     filling in what it leaves out);
//   - the base has no such file (404): the schema's defaults (no
//     approvers, write permission, the author ignored);
//   - the base's file is invalid, or cannot be read (a 403, a 5xx after
//     the retries, no base commit known): the defaults too (fail closed),
//     with a warning naming the file.
//
// When the pull request's own section differs, a warning names the
// settings that were ignored.

// trust settles, once, the github section that decides who may approve:
// the given one when it is trusted, else the base commit's. pr is the
// pull request as read from the API (its base commit).
func (c *Client) trust(ctx context.Context, pr *gh.PullRequest) {
	if c.trusted {
		return
	}
	c.trusted = true
	c.base = pr.GetBase().GetSHA()
	if c.base == "" {
		c.base = pr.GetBase().GetRef()
	}
	if c.trustGiven {
		c.baseSpecs = &c.specs
		return
	}
	base := c.base
	own := c.cfg
	cfg, tier, file, from := c.baseConfig(ctx, base)
	c.cfg, c.baseTier = cfg, tier
	if ignored := gate.IgnoredSettings(own, cfg); len(ignored) > 0 {
		c.prOwn = &own
		c.log.Warn().Str("config", file).Str("base", base).Str("base_config", from).Strs("ignored", ignored).
			Msg("the pull request's own github settings are ignored: who may approve its checkpoints is read from the config on the pull request's base commit, so that a pull request cannot approve itself")
	}
}

// baseConfig reads the github section of the config on the base commit:
// the first of c.files found there. from says where it came from. tier is
// the base config's specs.default_tier (the schema's when the base has no
// config), "" when it cannot be known (see tiers.go: fail closed).
func (c *Client) baseConfig(ctx context.Context, base string) (cfg schema.GitHub, tier, file, from string) {
	def := gate.DefaultGitHub()
	if len(c.files) == 0 {
		c.log.Warn().Msg("the config's path in the repository is unknown, so its github section cannot be read from the pull request's base commit: using the defaults (no github.approvers, github.required_permission write, github.ignore_pr_author true)")
		return def, "", "", "defaults"
	}
	file = c.files[0]
	if base == "" {
		c.log.Warn().Str("config", file).Msg("the pull request's base commit is unknown, so the github section of the config cannot be read from it: using the defaults (no github.approvers, github.required_permission write, github.ignore_pr_author true)")
		return def, "", file, "defaults"
	}
	for _, f := range c.files {
		src, found, err := c.fileAt(ctx, f, base)
		if err == nil && !found {
			continue
		}
		if err != nil {
			c.log.Warn().Err(err).Str("config", f).Str("base", base).Msg("cannot read the config on the pull request's base commit (the job needs `contents: read`): using the defaults for who may approve (no github.approvers, github.required_permission write, github.ignore_pr_author true)")
			return def, "", f, "defaults"
		}
		loaded, err := schema.LoadConfig(path.Base(f), src)
		if err != nil {
			c.log.Warn().Str("config", f).Str("base", base).Str("error", oneLine(err)).Msgf("the config %s on the pull request's base commit is invalid: using the defaults for who may approve (no github.approvers, github.required_permission write, github.ignore_pr_author true)", f)
			return def, "", f, "defaults"
		}
		c.baseSpecs = &loaded.Specs
		return loaded.GitHub, loaded.Specs.DefaultTier, f, f + "@" + base
	}
	c.log.Info().Str("config", file).Str("base", base).Msg("no config on the pull request's base commit: who may approve follows the defaults (no github.approvers, github.required_permission write, github.ignore_pr_author true)")
	specs := gate.DefaultSpecs()
	c.baseSpecs = &specs
	return def, gate.DefaultTier(), file, "defaults"
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// fileAt reads a file of the repository at ref through the contents API.
// found is false when there is no such file (404); a path that is not a
// file is an error.
func (c *Client) fileAt(ctx context.Context, file, ref string) (content []byte, found bool, err error) {
	fc, _, _, err := c.api.Contents.GetContents(ctx, c.owner, c.repo, file, &gh.RepositoryContentGetOptions{Ref: ref})
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if fc == nil || fc.GetType() != "file" {
		return nil, true, fmt.Errorf("%s is not a file", file)
	}
	src, err := fc.GetContent()
	return []byte(src), true, err
}
