// Package plan turns a discovered spec, its front matter and the config
// into what the loop runs: the spec's verification tier and its stages,
// each with an agent pool, a promise, a verification method and an
// iteration limit. `ralph-ci check` prints it; `ralph-ci run` follows it.
package plan

import (
	"cmp"
	"fmt"
	"path"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The two verification tiers; there is no third.
const (
	TierAuto   = "auto"
	TierVerify = "verify"
)

// Spec is a spec ready to run.
type Spec struct {
	discovery.Spec
	Front *schema.FrontMatter
	Title string // the front matter's title, else the file name
	ID    string // the front matter's id, else the file name

	Tier               string   // TierAuto or TierVerify
	AcceptanceCriteria []string // aggregated over all contracts
	Steps              []string // aggregated over all contracts
	Stages             []Stage
	// Removal is true for the checkpoint of a verify-tier spec of a pull
	// request's base that is gone from its head (gate.RemovalSpec): no
	// file, no loop; a person accepts its removal like any checkpoint.
	Removal bool
}

// AllAcceptanceCriteria are the spec's completion criteria and those of
// its contracts: what "{{acceptance_criteria}}" stands for.
func (s Spec) AllAcceptanceCriteria() []string {
	var out []string
	if s.Front != nil && s.Front.Completion != nil {
		out = append(out, s.Front.Completion.AcceptanceCriteria...)
	}
	return append(out, s.AcceptanceCriteria...)
}

// Stage is one stage of a spec's loop.
type Stage struct {
	Name          string // coder, reviewer, tester or qa
	Agents        []string
	MaxIterations int
	Criteria      schema.Criteria
	// Default is true when the spec did not define this stage's criteria.
	Default bool
}

// Resolve builds the plan of one spec.
func Resolve(cfg *schema.Config, ds discovery.Spec, fm *schema.FrontMatter) Spec {
	if fm == nil {
		fm = &schema.FrontMatter{}
	}
	name := strings.TrimSuffix(path.Base(ds.Path), ".md")
	s := Spec{Spec: ds, Front: fm, Title: cmp.Or(fm.Title, name), ID: cmp.Or(fm.ID, name)}
	s.Tier, s.AcceptanceCriteria, s.Steps = ResolveTier(cfg.Specs.DefaultTier, fm.Contracts)
	for _, st := range schema.StageNames {
		conf := cfg.Stages.Get(st)
		if !conf.Enabled {
			continue
		}
		stage := Stage{Name: st, Agents: cfg.StageAgents(st), MaxIterations: conf.MaxIterations}
		var given *schema.Criteria
		if fm.Completion != nil {
			given = fm.Completion.Stage(st)
		}
		if given != nil {
			stage.Criteria = *given
			if given.MaxIterations != nil {
				stage.MaxIterations = *given.MaxIterations
			}
		} else {
			stage.Default = true
			stage.Criteria = defaultCriteria(cfg, st, s.Title, fm.Completion)
		}
		if !cfg.Loop.Enabled {
			stage.MaxIterations = 1 // single-pass execution
		}
		s.Stages = append(s.Stages, stage)
	}
	return s
}

// ResolveTier applies "verify > auto": any verify contract makes the spec
// verify; a contract without the field is verify; a spec with no contracts
// takes the configured default. Criteria and steps of all contracts are
// aggregated, in order.
func ResolveTier(def string, contracts []schema.Contract) (tier string, criteria, steps []string) {
	if len(contracts) == 0 {
		return def, nil, nil
	}
	tier = TierAuto
	for _, c := range contracts {
		if c.Verification != TierAuto {
			tier = TierVerify
		}
		criteria = append(criteria, c.AcceptanceCriteria...)
		steps = append(steps, c.Steps...)
	}
	return tier, criteria, steps
}

// defaultCriteria is the spec's _build_default_criteria: the stage's
// default promise, verified semantically against the acceptance criteria.
// A spec without a completion spec falls back to the configured default
// verification (string_match unless changed). When the config gives the
// stage a verification_config, that method and config verify it instead:
// completion criteria from the config.
func defaultCriteria(cfg *schema.Config, stage, title string, c *schema.Completion) schema.Criteria {
	st := cfg.Stages.Get(stage)
	crit := schema.Criteria{
		Promise:     st.Promise,
		Description: fmt.Sprintf("Complete %s stage for: %s", stage, title),
	}
	if st.VerificationConfig != nil { // the config's criteria for this stage
		crit.VerificationMethod, crit.VerificationConfig = st.VerificationMethod, *st.VerificationConfig
		return crit
	}
	if c == nil {
		crit.VerificationMethod = cfg.Loop.DefaultVerification
		return crit
	}
	crit.VerificationMethod = "semantic"
	crit.VerificationConfig.CheckFor = &schema.CheckFor{Items: c.AcceptanceCriteria}
	return crit
}

// Methods lists the verification method of each stage, in order.
func (s Spec) Methods() []string {
	out := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		out[i] = st.Criteria.VerificationMethod
	}
	return out
}

// StageNames lists the stages, in order.
func (s Spec) StageNames() []string {
	out := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		out[i] = st.Name
	}
	return out
}
