package schema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueyaml "cuelang.org/go/encoding/yaml"
)

// TestSpecExamplesDecode loads every YAML example of
// completion-criteria-loop.md (copied verbatim into testdata) as spec front
// matter: the per-stage examples inside a completion spec, the task
// examples by their `completion` field.
func TestSpecExamplesDecode(t *testing.T) {
	files, err := filepath.Glob("testdata/spec-examples/ccl-*.yaml")
	if err != nil || len(files) != 6 {
		t.Fatalf("want the 6 examples, got %v (%v)", files, err)
	}
	ctx := cuecontext.New()
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := cueyaml.Extract(file, src)
			if err != nil {
				t.Fatal(err)
			}
			v := ctx.BuildFile(f)
			completion := v.LookupPath(cue.ParsePath("task.completion"))
			if !completion.Exists() {
				completion = v.LookupPath(cue.ParsePath("[0].completion"))
			}
			var front string
			if completion.Exists() {
				b, err := completion.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				front = `{"completion": ` + string(b) + `}`
			} else { // stage criteria only: wrap them in a completion spec
				b, err := v.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				front = `{"completion": {"outcome": "o", "acceptance_criteria": ["a"], ` + strings.TrimPrefix(string(b), "{") + "}"
			}
			fm, err := LoadFrontMatter("x.spec.md", []byte("---\n"+front+"\n---\nbody\n"))
			if err != nil {
				t.Fatalf("%v\nfront matter: %s", err, front)
			}
			stages := 0
			for _, name := range StageNames {
				if c := fm.Completion.Stage(name); c != nil {
					stages++
					if c.Promise == "" || c.VerificationMethod == "" {
						t.Errorf("%s: %+v", name, c)
					}
				}
			}
			if stages == 0 {
				t.Error("no stage criteria decoded")
			}
		})
	}
}

func TestFrontMatterDefaults(t *testing.T) {
	src := `---
title: Login
completion:
  outcome: "Users can log in"
  acceptance_criteria: ["login works"]
  tester:
    promise: TESTS_PASS
    description: tests pass
    verification_method: external
    verification_config:
      command: [go, test, ./...]
  qa:
    promise: QA
    description: qa
    verification_method: multi_stage
    verification_config:
      stages:
        - name: unit
          method: external
          config: {command: "make test", timeout: 5m}
        - name: criteria
          method: semantic
          config: {check_for: "{{acceptance_criteria}}"}
          required: false
        - name: promise
contracts:
  - name: login
    acceptance_criteria: [a]
    steps: [open the page]
  - verification: auto
---
# Login
`
	fm, err := LoadFrontMatter("specs/login.spec.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ext := fm.Completion.Tester.VerificationConfig
	if strings.Join(ext.Command.Args(), " ") != "go test ./..." || ext.SuccessExitCode != 0 || ext.Timeout.Std().Seconds() != 300 || ext.WorkingDir != "." || ext.AllowVerifierChanges {
		t.Errorf("external defaults: %+v", ext)
	}
	ms := fm.Completion.QA.VerificationConfig
	if ms.RequireAll == nil || !*ms.RequireAll || len(ms.Stages) != 3 {
		t.Fatalf("multi_stage: %+v", ms)
	}
	if s := ms.Stages[0]; s.Method != "external" || !s.Required || s.Config.Timeout.Std().Minutes() != 5 || strings.Join(s.Config.Command.Args(), " ") != "sh -c make test" {
		t.Errorf("stage 0: %+v", s)
	}
	if s := ms.Stages[1]; s.Required || !s.Config.CheckFor.AcceptanceCriteria || strings.Join(s.Config.CheckFor.Resolve([]string{"x"}), "") != "x" {
		t.Errorf("stage 1: %+v", s)
	}
	if s := ms.Stages[2]; s.Method != "string_match" || !s.Required {
		t.Errorf("stage 2 defaults: %+v", s)
	}
	if c := fm.Contracts; len(c) != 2 || c[0].Verification != "verify" || c[1].Verification != "auto" || len(c[1].Steps) != 0 {
		t.Errorf("contracts: %+v", c)
	}
}

func TestFrontMatterAbsentOrEmpty(t *testing.T) {
	for name, src := range map[string]string{
		"none":  "# Just a spec\n---\nnot front matter\n",
		"empty": "---\n---\n# Spec\n",
		"crlf":  "---\r\ntitle: T\r\n---\r\n# Spec\r\n",
	} {
		fm, err := LoadFrontMatter("a.spec.md", []byte(src))
		if err != nil || fm.Completion != nil || fm.Contracts != nil {
			t.Errorf("%s: %+v, %v", name, fm, err)
		}
	}
}

func TestFrontMatterProblems(t *testing.T) {
	type testCase struct {
		name, src string
		want      []string
	}
	head := "---\ncompletion:\n  outcome: o\n  acceptance_criteria: [a]\n"
	run := func(t *testing.T, tc testCase) {
		_, err := LoadFrontMatter("specs/a.spec.md", []byte(tc.src))
		var ps Problems
		if !errors.As(err, &ps) {
			t.Fatalf("err = %v, want problems", err)
		}
		if got, want := err.Error(), strings.Join(tc.want, "\n"); got != want {
			t.Errorf("problems:\n%s\nwant:\n%s", got, want)
		}
	}
	for _, tc := range []testCase{
		{name: "third tier", src: "---\ncontracts:\n  - verification: manual\n---\n",
			want: []string{`specs/a.spec.md:3:19: contracts.0.verification: "manual" is not allowed; want one of "auto", "verify"`}},
		{name: "unknown method", src: head + "  coder:\n    promise: P\n    description: d\n    verification_method: vibes\n---\n",
			want: []string{`specs/a.spec.md:8:26: completion.coder.verification_method: "vibes" is not allowed; want one of ` + oneOf(t, "#Method")}},
		{name: "outcome and criteria required", src: "---\ncompletion: {}\n---\n",
			want: []string{`specs/a.spec.md:2:1: completion.acceptance_criteria: missing required field`, `specs/a.spec.md:2:1: completion.outcome: missing required field`}},
		{name: "external needs a command; options follow the method", src: head + "  tester:\n    promise: T\n    description: d\n    verification_method: external\n    verification_config:\n      check_for: [x]\n---\n",
			want: []string{`specs/a.spec.md:9:5: completion.tester.verification_config.command: missing required field`, `specs/a.spec.md:10:7: completion.tester.verification_config.check_for: unknown field "check_for"`}},
		{name: "string_match takes no options", src: head + "  coder:\n    promise: P\n    description: d\n    verification_method: string_match\n    verification_config: {command: x}\n---\n",
			want: []string{`specs/a.spec.md:9:27: completion.coder.verification_config.command: unknown field "command"`}},
		{name: "negative max iterations and bad exit code", src: head + "  coder:\n    promise: P\n    description: d\n    verification_method: external\n    max_iterations: -3\n    verification_config: {command: x, success_exit_code: 300, timeout: soon}\n---\n",
			want: []string{`specs/a.spec.md:9:21: completion.coder.max_iterations: invalid value -3: want a number of at least 1`,
				`specs/a.spec.md:10:58: completion.coder.verification_config.success_exit_code: invalid value 300 (out of bound <=255)`,
				`specs/a.spec.md:10:72: completion.coder.verification_config.timeout: invalid value "soon": want a positive duration such as "90s", "30m" or "1h30m"`}},
		{name: "nested multi_stage", src: head + "  qa:\n    promise: Q\n    description: d\n    verification_method: multi_stage\n    verification_config:\n      stages: [{name: s, method: multi_stage}]\n---\n",
			want: []string{`specs/a.spec.md:10:34: completion.qa.verification_config.stages.0.method: "multi_stage" is not allowed; want one of ` + oneOf(t, "#StageMethod")}},
		{name: "promise with tags", src: head + "  coder:\n    promise: \"<promise>X</promise>\"\n    description: d\n    verification_method: string_match\n---\n",
			want: []string{`specs/a.spec.md:6:14: completion.coder.promise: invalid value "<promise>X</promise>": a promise is plain text without "<" or ">"`}},
		{name: "yaml syntax error on the file's line", src: "---\ntitle: ok\ncompletion: [\n---\n# body\n",
			want: []string{`specs/a.spec.md:3:1: did not find expected node content`}},
		{name: "seconds that overflow a duration", src: head + "  tester:\n    promise: T\n    description: d\n    verification_method: external\n    verification_config: {command: x, timeout: 9223372037}\n---\n",
			want: []string{`specs/a.spec.md:9:48: completion.tester.verification_config.timeout: invalid value 9223372037 (out of bound <=9223372036)`}},
		{name: "duplicate key", src: "---\ntitle: a\ntitle: b\n---\n",
			want: []string{`specs/a.spec.md:3:1: title: duplicate key "title" (first given at line 2); keep one`}},
		{name: "unknown anchor placed at the alias", src: "---\ntitle: a\ncontracts: *c\n---\n",
			want: []string{`specs/a.spec.md:3:12: unknown anchor 'c' referenced`}},
		{name: "unclosed front matter", src: "---\ntitle: x\n# body\n",
			want: []string{`specs/a.spec.md:1:1: front matter opened with "---" is never closed; end it with a line "---"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestStateSchema(t *testing.T) {
	good := `{"version": 1, "iteration": 3, "specs": [{"path": "PROMPT.md", "done_count": 2, "last_status": "DONE", "last_hash": "ab", "modified_files": false}]}`
	if err := ValidateJSON("#State", ".ralph/state.json", []byte(good)); err != nil {
		t.Fatal(err)
	}
	bad := `{"version": 2, "iteration": 3, "specs": [{"path": "PROMPT.md", "done_count": 4, "last_status": "done", "last_hash": "ab", "modified_files": false}]}`
	err := ValidateJSON("#State", ".ralph/state.json", []byte(bad))
	for _, want := range []string{"version", "specs.0.done_count", "specs.0.last_status"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want a problem at %s", err, want)
		}
	}
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatal("want Problems")
	}
	_ = json.Valid
}
