package plan

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/schema"
)

func config(t *testing.T, extra string) *schema.Config {
	t.Helper()
	cfg, err := schema.LoadConfig("ralph.yaml", []byte("agents: {coder: {command: [sh]}, rev: {command: [sh]}}\n"+extra))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func front(t *testing.T, src string) *schema.FrontMatter {
	t.Helper()
	fm, err := schema.LoadFrontMatter("specs/a.spec.md", []byte("---\n"+src+"\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	return fm
}

var ds = discovery.Spec{Path: "specs/login.spec.md", Name: "login.spec"}

func TestTierResolution(t *testing.T) {
	cfg := config(t, "")
	for _, tc := range []struct {
		name, front, tier, criteria, steps string
	}{
		{"no contracts: configured default (verify)", "title: x", "verify", "", ""},
		{"contract without the field is verify", "contracts: [{acceptance_criteria: [a]}]", "verify", "a", ""},
		{"all auto", "contracts: [{verification: auto}, {verification: auto, steps: [s]}]", "auto", "", "s"},
		{"verify wins over auto", "contracts: [{verification: auto, acceptance_criteria: [a], steps: [s1]}, {verification: verify, acceptance_criteria: [b], steps: [s2]}, {verification: auto}]", "verify", "a,b", "s1,s2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Resolve(cfg, ds, front(t, tc.front))
			if s.Tier != tc.tier || strings.Join(s.AcceptanceCriteria, ",") != tc.criteria || strings.Join(s.Steps, ",") != tc.steps {
				t.Errorf("tier %s criteria %q steps %q", s.Tier, s.AcceptanceCriteria, s.Steps)
			}
		})
	}
	auto := config(t, "specs: {default_tier: auto}\n")
	if s := Resolve(auto, ds, nil); s.Tier != TierAuto {
		t.Errorf("configured default tier ignored: %s", s.Tier)
	}
}

func TestStagesWithoutCompletionFallBackToDefaultVerification(t *testing.T) {
	s := Resolve(config(t, ""), ds, nil)
	if got := strings.Join(s.StageNames(), ","); got != "coder,reviewer,tester,qa" {
		t.Fatalf("stages %s", got)
	}
	if got := strings.Join(s.Methods(), ","); got != "string_match,string_match,string_match,string_match" {
		t.Errorf("methods %s", got)
	}
	want := map[string]string{"coder": "IMPLEMENTATION_COMPLETE", "reviewer": "REVIEW_PASSED", "tester": "TESTS_PASSED", "qa": "QA_PASSED"}
	for _, st := range s.Stages {
		if !st.Default || st.Criteria.Promise != want[st.Name] {
			t.Errorf("%s: %+v", st.Name, st)
		}
	}
	if s.Stages[0].MaxIterations != 15 || s.Title != "login.spec" {
		t.Errorf("max iterations %d, title %s", s.Stages[0].MaxIterations, s.Title)
	}
}

func TestDefaultCriteriaAreSemanticAgainstAcceptanceCriteria(t *testing.T) {
	fm := front(t, `title: Login
completion:
  outcome: o
  acceptance_criteria: [a, b]
  coder: {promise: CODED, description: d, verification_method: string_match, max_iterations: 4}`)
	s := Resolve(config(t, "stages: {reviewer: {agents: [rev]}, tester: {enabled: false}}\n"), ds, fm)
	if got := strings.Join(s.StageNames(), ","); got != "coder,reviewer,qa" {
		t.Fatalf("stages %s", got)
	}
	coder, reviewer := s.Stages[0], s.Stages[1]
	if coder.Default || coder.Criteria.Promise != "CODED" || coder.MaxIterations != 4 {
		t.Errorf("coder: %+v", coder)
	}
	c := reviewer.Criteria
	if !reviewer.Default || c.Promise != "REVIEW_PASSED" || c.VerificationMethod != "semantic" ||
		strings.Join(c.VerificationConfig.CheckFor.Items, ",") != "a,b" || c.Description != "Complete reviewer stage for: Login" {
		t.Errorf("reviewer default criteria: %+v", reviewer)
	}
	if strings.Join(reviewer.Agents, ",") != "rev" || strings.Join(coder.Agents, ",") != "coder" {
		t.Errorf("agents %v %v", coder.Agents, reviewer.Agents)
	}
}

func TestLoopDisabledMeansSinglePass(t *testing.T) {
	s := Resolve(config(t, "loop: {enabled: false}\n"), ds, nil)
	for _, st := range s.Stages {
		if st.MaxIterations != 1 {
			t.Errorf("%s max iterations %d", st.Name, st.MaxIterations)
		}
	}
}

// Completion criteria may come from the config: a stage's
// verification_config verifies every spec that does not define that
// stage, with the stage's method.
func TestStageCriteriaFromTheConfig(t *testing.T) {
	cfg := config(t, "stages:\n  coder: {verification_method: external, verification_config: {command: 'go test ./...', timeout: 60}}\n  reviewer: {enabled: false}\n  tester: {enabled: false}\n  qa: {enabled: false}\n")
	for name, fm := range map[string]*schema.FrontMatter{
		"no completion spec":       nil,
		"completion without coder": front(t, "completion: {outcome: o, acceptance_criteria: [a]}"),
	} {
		s := Resolve(cfg, ds, fm)
		c := s.Stages[0].Criteria
		if !s.Stages[0].Default || c.VerificationMethod != "external" || c.VerificationConfig.Command == nil ||
			c.VerificationConfig.Command.Shell != "go test ./..." || c.VerificationConfig.Timeout.Std().Seconds() != 60 {
			t.Errorf("%s: %+v", name, c)
		}
	}
	// A spec's own criteria still win.
	s := Resolve(cfg, ds, front(t, "completion: {outcome: o, acceptance_criteria: [a], coder: {promise: P, description: d, verification_method: string_match}}"))
	if s.Stages[0].Default || s.Stages[0].Criteria.VerificationMethod != "string_match" {
		t.Errorf("spec criteria: %+v", s.Stages[0])
	}
}

func TestAllAcceptanceCriteria(t *testing.T) {
	sp := Spec{AcceptanceCriteria: []string{"from a contract"}}
	if got := strings.Join(sp.AllAcceptanceCriteria(), "|"); got != "from a contract" {
		t.Errorf("without a completion spec: %q", got)
	}
	sp.Front = &schema.FrontMatter{Completion: &schema.Completion{AcceptanceCriteria: []string{"outcome criterion"}}}
	if got := strings.Join(sp.AllAcceptanceCriteria(), "|"); got != "outcome criterion|from a contract" {
		t.Errorf("with a completion spec: %q", got)
	}
}
