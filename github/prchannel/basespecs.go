package prchannel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

// BaseSpecs is the specs section that decides which specs exist on the
// pull request (the base commit's config's, or the given one when it did
// not come from the pull request); ok is false when it is unknown (the
// base's config could not be read). It reads the pull request first when
// Read or RaiseTiers has not.
func (c *Client) BaseSpecs(ctx context.Context) (specs schema.Specs, ok bool) {
	if !c.trusted {
		pr, _, err := c.api.PullRequests.Get(ctx, c.owner, c.repo, c.pr)
		if err != nil {
			return schema.Specs{}, false
		}
		c.head, c.prAuthor = pr.GetHead().GetSHA(), pr.GetUser().GetLogin()
		c.trust(ctx, pr)
	}
	if c.baseSpecs == nil {
		return schema.Specs{}, false
	}
	return *c.baseSpecs, true
}

// maxBaseFiles bounds the spec files read from the base commit.
const maxBaseFiles = 2000

// baseSpecFiles lists the specs of the base commit as discovery finds
// them (the prompt file, then every *.spec.md under the dirs), each with
// its id, content hash and tier. prefix is the specs' root in the
// repository.
func (c *Client) baseSpecFiles(ctx context.Context, prefix string) ([]gate.BaseSpec, error) {
	specs, ok := c.BaseSpecs(ctx)
	if !ok || c.base == "" {
		return nil, fmt.Errorf("the pull request's base commit or its config is unknown")
	}
	var files []string
	if specs.Prompt != "" {
		files = append(files, specs.Prompt)
	}
	for _, dir := range specs.Dirs {
		if err := c.walk(ctx, prefix, path.Clean(dir), &files); err != nil {
			return nil, err
		}
	}
	def := c.baseTier
	if c.trustGiven && def == "" {
		def = gate.DefaultTier()
	}
	var out []gate.BaseSpec
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		src, found, err := c.fileAt(ctx, prefix+f, c.base)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		sum := sha256.Sum256(src)
		b := gate.BaseSpec{Path: f, ID: strings.TrimSuffix(path.Base(f), ".md"), Hash: hex.EncodeToString(sum[:])}
		fm, err := schema.LoadFrontMatter(path.Base(f), src)
		if err != nil {
			b.Tier = "verify" // unreadable on the base: fail closed
		} else {
			if fm.ID != "" {
				b.ID = fm.ID
			}
			if b.Tier, _ = gate.BaseTier(def, fm.Contracts); b.Tier == "" {
				b.Tier = "verify"
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// walk adds the *.spec.md files under dir on the base commit to files.
func (c *Client) walk(ctx context.Context, prefix, dir string, files *[]string) error {
	_, entries, _, err := c.api.Contents.GetContents(ctx, c.owner, c.repo, prefix+dir, &gh.RepositoryContentGetOptions{Ref: c.base})
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s on the base commit: %w", prefix+dir, err)
	}
	for _, e := range entries {
		if len(*files) >= maxBaseFiles {
			return fmt.Errorf("more than %d spec files on the base commit", maxBaseFiles)
		}
		name := path.Join(dir, e.GetName())
		switch {
		case e.GetType() == "dir":
			if err := c.walk(ctx, prefix, name, files); err != nil {
				return err
			}
		case e.GetType() == "file" && strings.HasSuffix(name, ".spec.md"):
			*files = append(*files, name)
		}
	}
	return nil
}

// departures applies gate.Departures to specs in place: a verify-tier
// spec of the base moved in the pull request stays verify; one that left
// it is named in a warning, an annotation and the job summary. A base
// that cannot be listed is a warning (the tiers are still raised path by
// path).
func (c *Client) departures(ctx context.Context, specs []plan.Spec, prefix string) {
	base, err := c.baseSpecFiles(ctx, prefix)
	if err != nil {
		c.log.Warn().Err(err).Msg("cannot list the specs of the pull request's base commit: a verify-tier spec it moved or deleted is not recognised")
		return
	}
	for _, d := range gate.Departures(base, specs) {
		if d.To != "" {
			for i := range specs {
				if specs[i].Path == d.To {
					specs[i].Tier = plan.TierVerify
				}
			}
			c.log.Warn().Str("spec", d.To).Str("base_path", d.Base.Path).Msg(d.Message())
			continue
		}
		c.log.Warn().Str("spec", d.Base.Path).Str("base", c.base).Msg(d.Message())
		c.left = append(c.left, d.Message())
		c.removed = append(c.removed, gate.RemovalSpec(d.Base))
		if c.annotations != nil {
			_ = actions.WriteAnnotation(c.annotations, actions.Annotation{Level: actions.LevelWarning, Title: "ralph-ci: a verify-tier spec left the gate", Message: d.Message()})
		}
		c.summary("\n> [!WARNING]\n> ralph-ci: " + d.Message() + "\n")
	}
}

// Removals are the checkpoints of the verify-tier specs of the base that
// left the pull request (gate.RemovalSpec), for the gate to judge with
// the specs.
func (c *Client) Removals() []plan.Spec { return c.removed }

// Left are the messages of the verify-tier specs of the base that left
// the pull request (departures), for the gate's output.
func (c *Client) Left() []string { return c.left }

// summary appends text to the job summary, when there is one.
func (c *Client) summary(text string) {
	if c.actions.StepSummary == "" {
		return
	}
	f, err := os.OpenFile(c.actions.StepSummary, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.log.Warn().Err(err).Msg("job summary")
		return
	}
	_, err = io.WriteString(f, text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		c.log.Warn().Err(err).Msg("job summary")
	}
}
