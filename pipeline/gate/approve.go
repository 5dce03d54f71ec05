package gate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Who may approve a checkpoint, and which specs have one, are decided
// here, once, for every channel: the pull-request channel only reads
// what these rules need through the API (the base commit's config and
// spec files, collaborator permissions) and applies them. Neither may be
// decided by the pull request being approved: its own config could name
// its author in github.approvers, and its own spec files could flip a
// spec to auto. So the github section that decides is the base commit's
// (the schema's defaults when it has none, or cannot be read: fail
// closed), unless the config did not come from the pull request at all
// (ApprovalConfig), and a pull request may raise a spec's tier but not
// lower it (RaisedTier).

// DefaultGitHub is the schema's github section of a config that leaves
// it out: no approvers, write permission, the pull request's author
// ignored.
var DefaultGitHub = sync.OnceValue(func() schema.GitHub {
	if cfg := defaultConfig(); cfg != nil {
		return cfg.GitHub
	}
	return schema.GitHub{RequiredPermission: "write", IgnorePRAuthor: true} // the strictest reading
})

// DefaultTier is the schema's specs.default_tier ("verify" if unknown).
var DefaultTier = sync.OnceValue(func() string {
	if cfg := defaultConfig(); cfg != nil && cfg.Specs.DefaultTier != "" {
		return cfg.Specs.DefaultTier
	}
	return plan.TierVerify
})

// DefaultSpecs is the schema's specs section of a config that leaves it
// out (where specs are discovered).
var DefaultSpecs = sync.OnceValue(func() schema.Specs {
	if cfg := defaultConfig(); cfg != nil {
		return cfg.Specs
	}
	return schema.Specs{Prompt: "PROMPT.md", Dirs: []string{".ralph/specs", "specs"}, DefaultTier: plan.TierVerify}
})

// defaultConfig is the schema's config of a minimal file, nil if it fails.
func defaultConfig() *schema.Config {
	cfg, err := schema.LoadConfig("ralph.yaml", []byte("agents: {coder: {command: [\"true\"]}}\n"))
	if err != nil {
		return nil
	}
	return cfg
}

// Person is the author of an answer, as the channel knows them.
type Person struct {
	Login string
	Bot   bool // a GitHub App or a login ending in [bot]
}

// Approvers decides whose answers count on a pull request.
type Approvers struct {
	// Config is the github section that decides: the base commit's, or
	// the loaded one when it did not come from the pull request.
	Config schema.GitHub
	// PROwn is the pull request's own github section when it differs
	// from Config. It never decides; a reason names it when it would have
	// let an answer count.
	PROwn *schema.GitHub
	// Self is the login of the tool's token ("" when unknown).
	Self string
	// PRAuthor is the login of the pull request's author.
	PRAuthor string
}

// Permission looks up the collaborator permission of login (admin,
// maintain, write, triage, read; "none" for a non-collaborator).
type Permission func(ctx context.Context, login string) (string, error)

// Why says why an answer by p does not count, "" when it does: bots and
// the tool's own comments never count, nor the pull request's author when
// github.ignore_pr_author is set; the configured approvers count, then
// anyone whose collaborator permission is at least
// github.required_permission (write when unset). permission is asked
// only when the answer depends on it.
func (a Approvers) Why(ctx context.Context, p Person, permission Permission) (string, error) {
	why, err := a.with(ctx, p, a.Config, permission)
	if err != nil || why == "" || a.PROwn == nil {
		return why, err
	}
	if own, err := a.with(ctx, p, *a.PROwn, permission); err == nil && own == "" {
		why += "; the pull request's own config would let it count, but a pull request may not decide who approves it: the github section is read from the config on its base commit"
	}
	return why, nil
}

func (a Approvers) with(ctx context.Context, p Person, cfg schema.GitHub, permission Permission) (string, error) {
	switch {
	case p.Bot || strings.HasSuffix(p.Login, "[bot]"):
		return "a bot", nil
	case a.Self != "" && strings.EqualFold(p.Login, a.Self):
		return "ralph-ci's own comment", nil
	case cfg.IgnorePRAuthor && strings.EqualFold(p.Login, a.PRAuthor):
		return "the pull request's author (github.ignore_pr_author)", nil
	}
	for _, ap := range cfg.Approvers {
		if strings.EqualFold(ap, p.Login) {
			return "", nil
		}
	}
	have, err := permission(ctx, p.Login)
	if err != nil {
		return "", err
	}
	need := cfg.RequiredPermission
	if need == "" {
		need = "write"
	}
	if Rank(have) < Rank(need) {
		return fmt.Sprintf("permission %q is below github.required_permission %q and not in github.approvers", have, need), nil
	}
	return "", nil
}

// Rank orders collaborator permissions, admin highest; unknown ones
// (and "none") rank 0.
func Rank(p string) int {
	switch p {
	case "admin":
		return 5
	case "maintain":
		return 4
	case "write":
		return 3
	case "triage":
		return 2
	case "read":
		return 1
	}
	return 0
}

// IgnoredSettings lists the settings of the pull request's own github
// section that differ from the base's, which decides, as "key: own value
// (base: base value)". Approvers compare without case and order.
func IgnoredSettings(own, base schema.GitHub) []string {
	var out []string
	norm := func(ls []string) []string {
		n := make([]string, len(ls))
		for i, l := range ls {
			n[i] = strings.ToLower(l)
		}
		slices.Sort(n)
		return slices.Compact(n)
	}
	if !slices.Equal(norm(own.Approvers), norm(base.Approvers)) {
		out = append(out, fmt.Sprintf("github.approvers: %v (base: %v)", own.Approvers, base.Approvers))
	}
	if own.RequiredPermission != base.RequiredPermission {
		out = append(out, fmt.Sprintf("github.required_permission: %q (base: %q)", own.RequiredPermission, base.RequiredPermission))
	}
	if own.IgnorePRAuthor != base.IgnorePRAuthor {
		out = append(out, fmt.Sprintf("github.ignore_pr_author: %t (base: %t)", own.IgnorePRAuthor, base.IgnorePRAuthor))
	}
	return out
}

// BaseTier is the tier of a spec on the pull request's base commit from
// the base's specs.default_tier (def, "" when the base's config could not
// be read) and the contracts of the spec there (or, for a spec new in the
// pull request, on the head). why says why it cannot be known ("" when it
// can): a spec without contracts whose base default is unknown.
func BaseTier(def string, contracts []schema.Contract) (tier, why string) {
	if len(contracts) == 0 && def == "" {
		return "", "the base's config (its specs.default_tier) could not be read"
	}
	tier, _, _ = plan.ResolveTier(def, contracts)
	return tier, ""
}

// RaisedTier is the tier of a spec on a pull request: verify when it is
// verify on the head, was verify on the base, or its tier on the base is
// unknown (unknown says why: fail closed); else the head's. warning says
// why the tier was raised, "" when it was not.
func RaisedTier(head, base, unknown string) (tier, warning string) {
	switch {
	case head == plan.TierVerify:
		return head, ""
	case unknown != "":
		return plan.TierVerify, "the spec's tier on the pull request's base commit is unknown: it is treated as verify (fail closed), so it keeps its human checkpoint"
	case base == plan.TierVerify:
		return plan.TierVerify, "the pull request tried to lower the spec's tier: a pull request may raise a spec's tier but not lower it, so it stays verify and keeps its human checkpoint"
	}
	return head, ""
}
