package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

func ext(name, cmd string, required bool) schema.VerifyStage {
	return schema.VerifyStage{Name: name, Method: External, Required: required, Config: schema.VerificationConfig{Command: &schema.Command{Shell: cmd}}}
}

func TestMultiStage(t *testing.T) {
	no := false
	sem := schema.VerifyStage{Name: "no_todos", Method: Semantic, Required: true, Config: schema.VerificationConfig{NegativePatterns: []string{"TODO"}, Judge: "j"}}
	for _, tc := range []struct {
		name       string
		text       string
		cfg        schema.VerificationConfig
		pass       bool
		reason     string
		stages     string // name=passed,...
		warnLogged bool
	}{
		{"all pass", "<promise>DONE_X</promise>", schema.VerificationConfig{Stages: []schema.VerifyStage{ext("unit", "true", true), sem, {Name: "promise", Method: StringMatch, Required: true}}},
			true, "All 3 verification stages passed", "unit=true,no_todos=true,promise=true", false},
		{"required failure stops at once with require_all", "x", schema.VerificationConfig{Stages: []schema.VerifyStage{ext("unit", "exit 1", true), ext("later", "true", true)}},
			false, "Stage 'unit' failed: Command exited with 1, expected 0", "unit=false", false},
		{"require_all false collects every failed required stage", "x", schema.VerificationConfig{RequireAll: &no, Stages: []schema.VerifyStage{ext("a", "exit 1", true), ext("b", "true", true), ext("c", "exit 2", true)}},
			false, "Failed stages: a: Command exited with 1, expected 0; c: Command exited with 2, expected 0", "a=false,b=true,c=false", false},
		{"optional failure is a warning", "x", schema.VerificationConfig{Stages: []schema.VerifyStage{ext("cov", "exit 1", false), ext("b", "true", true)}},
			true, "All 2 verification stages passed", "cov=false,b=true", true},
		{"semantic stage rejects forbidden output", "done but TODO", schema.VerificationConfig{Stages: []schema.VerifyStage{sem}},
			false, "Stage 'no_todos' failed: Found negative pattern: TODO", "no_todos=false", false},
		{"method defaults to string_match and name to unnamed", "<promise>DONE_X</promise>", schema.VerificationConfig{Stages: []schema.VerifyStage{{Required: true}}},
			true, "All 1 verification stages passed", "unnamed=true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, log := input(t, tc.text, Watch("DONE_X", tc.cfg)...)
			in.Judge = &fakeJudge{answer: "VERIFIED"}
			r := Verify(context.Background(), MultiStage, in, tc.cfg)
			if r.Passed != tc.pass || r.Reason != tc.reason {
				t.Fatalf("got %v %q", r.Passed, r.Reason)
			}
			var got []string
			for _, s := range r.Stages {
				got = append(got, s.Name+"="+map[bool]string{true: "true", false: "false"}[s.Passed])
			}
			if strings.Join(got, ",") != tc.stages {
				t.Errorf("stages %v", got)
			}
			if w := strings.Contains(log.String(), "optional verification stage failed"); w != tc.warnLogged {
				t.Errorf("warning %v: %s", w, log)
			}
		})
	}
}

func TestMultiStageInjectsAcceptanceCriteria(t *testing.T) {
	in, _ := input(t, "out")
	in.AcceptanceCriteria = []string{"c1"}
	j := &fakeJudge{answer: "NOT_VERIFIED: c1 missing"}
	in.Judge = j
	cfg := schema.VerificationConfig{Stages: []schema.VerifyStage{{Name: "acceptance", Method: Semantic, Required: true, Config: schema.VerificationConfig{Judge: "j", CheckFor: &schema.CheckFor{AcceptanceCriteria: true}}}}}
	r := Verify(context.Background(), MultiStage, in, cfg)
	if r.Passed || r.Reason != "Stage 'acceptance' failed: NOT_VERIFIED: c1 missing" || !strings.Contains(j.prompt, "- c1\n") {
		t.Errorf("%+v\n%s", r, j.prompt)
	}
}

func TestWatchListsNegativePatterns(t *testing.T) {
	cfg := schema.VerificationConfig{NegativePatterns: []string{"TODO"}, Stages: []schema.VerifyStage{{Config: schema.VerificationConfig{NegativePatterns: []string{"FIXME"}}}}}
	if got := strings.Join(Watch("P", cfg), ","); got != "P,TODO,FIXME" {
		t.Error(got)
	}
}
