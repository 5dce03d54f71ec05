package schema

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// minimalYAML is the minimal config pinned by the design; tests and users
// depend on it.
const minimalYAML = `agents:
  coder:
    command: [sh, agent.sh]   # argv; prompt on stdin
    format: text              # text | claude | codex
    timeout: 30m
`

func TestLoadConfigMinimalFillsDefaults(t *testing.T) {
	cfg, err := LoadConfig("ralph.yaml", []byte(minimalYAML))
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agents["coder"]
	if got := strings.Join(a.Command, " "); got != "sh agent.sh" || a.Format != "text" || a.Timeout.Std() != 30*time.Minute {
		t.Errorf("agent = %+v", a)
	}
	// Per-Agent Defaults table of completion-criteria-loop.md.
	for _, want := range []struct {
		name    string
		maxIter int
		promise string
		method  string
	}{
		{"coder", 15, "IMPLEMENTATION_COMPLETE", "external"},
		{"reviewer", 5, "REVIEW_PASSED", "semantic"},
		{"tester", 10, "TESTS_PASSED", "external"},
		{"qa", 5, "QA_PASSED", "multi_stage"},
	} {
		st := cfg.Stages.Get(want.name)
		if !st.Enabled || st.MaxIterations != want.maxIter || st.Promise != want.promise || st.VerificationMethod != want.method {
			t.Errorf("stage %s = %+v, want %+v", want.name, *st, want)
		}
		if got := cfg.StageAgents(want.name); len(got) != 1 || got[0] != "coder" {
			t.Errorf("stage %s agents = %v, want [coder]", want.name, got)
		}
	}
	// Global Settings table.
	if l := cfg.Loop; !l.Enabled || l.DefaultMaxIterations != nil || l.DefaultVerification != "string_match" || l.StuckAttempts != 3 {
		t.Errorf("loop = %+v", l)
	}
	// Contradiction phrases of verification-layers.md, layer 1.
	want := []string{"requires manual", "cannot be automated", "could not complete", "needs human", "manual intervention"}
	if got := cfg.Layers.ContradictionPhrases; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("contradiction phrases = %q", got)
	}
	if cfg.Specs.Prompt != "PROMPT.md" || strings.Join(cfg.Specs.Dirs, ",") != ".ralph/specs,specs" || cfg.Specs.DefaultTier != "verify" {
		t.Errorf("specs = %+v", cfg.Specs)
	}
	if b := cfg.Budgets; len(b.Prices) != 0 || !reflect.DeepEqual(b, Budgets{MaxWait: Duration(15 * time.Minute), Prices: b.Prices}) {
		t.Errorf("budgets = %+v, want unlimited", cfg.Budgets)
	}
	if cfg.GitHub.RequiredPermission != "write" || !cfg.GitHub.IgnorePRAuthor {
		t.Errorf("github = %+v", cfg.GitHub)
	}
}

func TestLoadConfigSameInAllFormats(t *testing.T) {
	yaml, err := LoadConfig("ralph.yaml", []byte(minimalYAML))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"ralph.json": `{"agents": {"coder": {"command": ["sh", "agent.sh"], "format": "text", "timeout": "30m"}}}`,
		"ralph.cue":  "agents: coder: {\n\tcommand: [\"sh\", \"agent.sh\"]\n\tformat: \"text\"\n\ttimeout: \"30m\"\n}\n",
		"ralph.yml":  minimalYAML,
	} {
		cfg, err := LoadConfig(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cfg.File = yaml.File
		if got, want := mustJSON(t, cfg), mustJSON(t, yaml); got != want {
			t.Errorf("%s decodes to\n%s\nwant (as ralph.yaml)\n%s", name, got, want)
		}
	}
}

func TestLoadConfigFullExample(t *testing.T) {
	src := `version: 1
agents:
  claude:
    command: [claude, -p, --output-format, json]
    format: claude
    timeout: 45m
    env: {CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"}
  codex: {command: [codex, exec, --json, "-"], format: codex}
  judge: {command: [claude, -p], format: claude, timeout: 2m}
stages:
  coder: {agents: [claude, codex], max_iterations: 20}
  reviewer: {agents: [codex], promise: LGTM, verification_method: string_match}
  tester: {enabled: false}
  qa: {enabled: false}
loop: {enabled: true, default_max_iterations: 12, default_verification: semantic, stuck_attempts: 2}
budgets: {max_rotations: 50, wall_time: 2h30m, cost_usd: 12.5}
specs: {prompt: TASK.md, dirs: [work], default_tier: auto}
layers:
  contradiction_phrases: ["not done"]
  review: {enabled: false, max_iterations: 2, every: 3}
reporters: {junit: out/junit.xml, json: ""}
github: {approvers: [octocat, "renovate[bot]"], required_permission: maintain, ignore_pr_author: false}
workflow: {visual_checkpoint: true}
`
	cfg, err := LoadConfig("ralph.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.StageAgents("coder"); strings.Join(got, ",") != "claude,codex" {
		t.Errorf("coder agents = %v", got)
	}
	if got := cfg.StageAgents("qa"); strings.Join(got, ",") != "claude,codex" {
		t.Errorf("qa agents = %v, want the coder stage's pool (no agent named qa or coder)", got)
	}
	if cfg.Budgets.WallTime.Std() != 150*time.Minute || cfg.Budgets.CostUSD != 12.5 || cfg.Budgets.MaxRotations != 50 {
		t.Errorf("budgets = %+v", cfg.Budgets)
	}
	if cfg.Stages.Tester.Enabled || cfg.Stages.Tester.MaxIterations != 10 {
		t.Errorf("tester = %+v", cfg.Stages.Tester)
	}
	if cfg.Workflow == nil || cfg.Workflow.VisualCheckpoint == nil || !*cfg.Workflow.VisualCheckpoint {
		t.Errorf("workflow = %+v", cfg.Workflow)
	}
}

// TestLoadConfigProblems pins what a user sees for each kind of mistake:
// the file, the line and column in it, the field and what to do.
func TestLoadConfigProblems(t *testing.T) {
	type testCase struct {
		name, file, src string
		want            []string
	}
	run := func(t *testing.T, tc testCase) {
		cfg, err := LoadConfig(tc.file, []byte(tc.src))
		var ps Problems
		if !errors.As(err, &ps) {
			t.Fatalf("got config %+v, err %v; want problems", cfg, err)
		}
		if got, want := err.Error(), strings.Join(tc.want, "\n"); got != want {
			t.Errorf("problems:\n%s\nwant:\n%s", got, want)
		}
	}
	for _, tc := range []testCase{
		{name: "wrong type", file: "ralph.yaml",
			src:  "agents:\n  coder:\n    command: [sh]\nloop:\n  enabled: \"yes\"\n  stuck_attempts: many\n",
			want: []string{`ralph.yaml:5:12: loop.enabled: wrong type: got string "yes", want bool`, `ralph.yaml:6:19: loop.stuck_attempts: wrong type: got string "many", want int`}},
		{name: "unknown key with suggestion", file: "ralph.yaml",
			src:  "agents:\n  coder:\n    command: [sh]\n    tmeout: 5m\nbudget: {}\n",
			want: []string{`ralph.yaml:4:5: agents.coder.tmeout: unknown field "tmeout"; did you mean "timeout"?`, `ralph.yaml:5:1: budget: unknown field "budget"; did you mean "budgets"?`}},
		{name: "unknown key next to a bad value", file: "ralph.yaml",
			src:  "agents:\n  coder:\n    command: []\n    fromat: json\n",
			want: []string{`ralph.yaml:3:5: agents.coder.command: must not be empty`, `ralph.yaml:4:5: agents.coder.fromat: unknown field "fromat"; did you mean "format"?`}},
		{name: "third tier", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh]}}\nspecs: {default_tier: manual}\n",
			want: []string{`ralph.yaml:2:23: specs.default_tier: "manual" is not allowed; want one of "auto", "verify"`}},
		{name: "unknown verification method", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh]}}\nloop: {default_verification: regex}\n",
			want: []string{`ralph.yaml:2:30: loop.default_verification: "regex" is not allowed; want one of ` + oneOf(t, "#Method")}},
		{name: "unknown format", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh], format: gpt}}\n",
			want: []string{`ralph.yaml:1:41: agents.coder.format: "gpt" is not allowed; want one of ` + oneOf(t, "#Format")}},
		{name: "negative limits", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh]}}\nbudgets: {max_rotations: -1, cost_usd: -2}\nstages: {coder: {max_iterations: 0}}\n",
			want: []string{`ralph.yaml:2:26: budgets.max_rotations: invalid value -1: want a number of at least 1`, `ralph.yaml:2:40: budgets.cost_usd: invalid value -2: want a number greater than 0`, `ralph.yaml:3:34: stages.coder.max_iterations: invalid value 0: want a number of at least 1`}},
		{name: "bad durations", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh], timeout: 10 minutes}}\nbudgets: {wall_time: 0s}\n",
			want: []string{`ralph.yaml:1:42: agents.coder.timeout: invalid value "10 minutes": want a positive duration such as "90s", "30m" or "1h30m"`, `ralph.yaml:2:22: budgets.wall_time: invalid value "0s": want a duration greater than zero`}},
		{name: "empty argv", file: "ralph.json",
			src:  "{\n  \"agents\": {\"coder\": {\"command\": []}}\n}\n",
			want: []string{`ralph.json:2:25: agents.coder.command: must not be empty`}},
		{name: "empty program name", file: "ralph.yaml",
			src:  "agents: {coder: {command: [\"\"]}}\n",
			want: []string{`ralph.yaml:1:28: agents.coder.command.0: invalid value "": must not be empty`}},
		{name: "yaml syntax error", file: "ralph.yaml",
			src:  "agents:\n  coder: [\n",
			want: []string{`ralph.yaml:2:1: did not find expected node content`}},
		{name: "json syntax error", file: "ralph.json",
			src:  "{\n  \"agents\": {\"coder\": }\n}\n",
			want: []string{`ralph.json:2:23: invalid JSON for file "ralph.json"`}},
		{name: "cue syntax error", file: "ralph.cue",
			src:  "agents: {\n  coder: command: [\"sh\"\n",
			want: []string{`ralph.cue:2:25: expected ']', found 'EOF'`}},
		{name: "top level not a mapping", file: "ralph.yaml",
			src:  "- agents\n",
			want: []string{`ralph.yaml:1:1: the top level must be a mapping of fields, not a list`}},
		{name: "no agents", file: "ralph.yaml",
			src:  "loop: {enabled: true}\n",
			want: []string{`ralph.yaml:1:1: agents: define at least one agent, e.g. agents: {coder: {command: [sh, agent.sh]}} or agents: {coder: {preset: claude}}`}},
		{name: "agent without command or preset", file: "ralph.yaml",
			src:  "agents:\n  coder: {format: claude}\n",
			want: []string{`ralph.yaml:2:3: agents.coder: give a command (an argv list) or a preset (claude, codex, gemini)`}},
		{name: "unknown preset", file: "ralph.yaml",
			src:  "agents:\n  coder: {preset: gpt}\n",
			want: []string{`ralph.yaml:2:19: agents.coder.preset: "gpt" is not allowed; want one of "claude", "codex", "gemini"`}},
		{name: "stage names a missing agent", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh]}}\nstages:\n  reviewer:\n    agents: [coder, revewer]\n",
			want: []string{`ralph.yaml:4:21: stages.reviewer.agents.1: no agent named "revewer"; defined agents: coder`}},
		{name: "relative spec dirs only", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh]}}\nspecs: {dirs: [/etc, ../up]}\n",
			want: []string{`ralph.yaml:2:16: specs.dirs.0: invalid value "/etc": want a path relative to the repository root`, `ralph.yaml:2:22: specs.dirs.1: invalid value "../up": want a path inside the repository (no "..")`}},
		{name: "yaml duplicate keys", file: "ralph.yaml",
			src:  "agents:\n  coder: {command: [sh]}\n  coder: {command: [x]}\nloop: {}\nloop: {watch: true}\n",
			want: []string{`ralph.yaml:3:3: agents.coder: duplicate key "coder" (first given at line 2); keep one`, `ralph.yaml:5:1: loop: duplicate key "loop" (first given at line 4); keep one`}},
		{name: "json duplicate keys", file: "ralph.json",
			src:  "{\n  \"agents\": {\"coder\": {\"command\": [\"sh\"], \"command\": [\"x\"]}},\n  \"agents\": {}\n}\n",
			want: []string{`ralph.json:2:43: agents.coder.command: duplicate key "command" (first given at line 2); keep one`, `ralph.json:3:3: agents: duplicate key "agents" (first given at line 2); keep one`}},
		{name: "json with a byte order mark shows the real error", file: "ralph.json",
			src:  "\ufeff{\"agents\": {\"coder\": {\"command\": [\"sh\"], \"tmeout\": \"1m\"}}}\n",
			want: []string{`ralph.json:1:43: agents.coder.tmeout: unknown field "tmeout"; did you mean "timeout"?`}},
		{name: "json top level not an object", file: "ralph.json", src: "[1]\n",
			want: []string{`ralph.json:1:1: the top level must be an object`}},
		{name: "unknown anchor placed at the alias, file named once", file: "ralph.yaml",
			src:  "loop: {}\nagents: *coders\n",
			want: []string{`ralph.yaml:2:9: unknown anchor 'coders' referenced`}},
		{name: "error on the first line has a line", file: "ralph.yaml", src: "agents: coder: x\n",
			want: []string{`ralph.yaml:1:1: mapping values are not allowed in this context`}},
		{name: "tab on the first line has a line", file: "ralph.yaml", src: "\t- a\n",
			want: []string{`ralph.yaml:1:1: found character that cannot start any token`}},
		{name: "report paths stay inside the repository", file: "ralph.yaml",
			src:  "agents: {coder: {command: [sh]}}\nreporters: {junit: /tmp/j.xml, json: ../r.json}\n",
			want: []string{`ralph.yaml:2:20: reporters.junit: invalid value "/tmp/j.xml": want a path relative to the repository root`, `ralph.yaml:2:38: reporters.json: invalid value "../r.json": want a path inside the repository (no "..")`}},
		{name: "unknown extension", file: "ralph.toml", src: "x = 1\n",
			want: []string{`ralph.toml: unknown config format; name it ralph.yaml, ralph.json or ralph.cue`}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestPresets(t *testing.T) {
	src := `agents:
  coder: {preset: claude, args: [--model, sonnet], env: {A: "1"}}
  own: {preset: codex, command: [my-codex, exec, --json], timeout: 5m}
stages:
  reviewer: {agents: [gemini]}
  tester: {agents: [codex]}
  qa: {enabled: false}
`
	cfg, err := LoadConfig("ralph.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct{ argv, format, timeout string }{
		"coder":  {"claude -p --output-format stream-json --verbose --permission-mode acceptEdits --model sonnet", "claude", "30m0s"},
		"own":    {"my-codex exec --json", "codex", "5m0s"},
		"gemini": {"gemini --output-format json --yolo", "gemini", "30m0s"},
		"codex":  {"codex exec --json --sandbox workspace-write -", "codex", "30m0s"},
	} {
		a, ok := cfg.Agents[name]
		if !ok {
			t.Errorf("agent %s missing", name)
			continue
		}
		if got := strings.Join(a.Command, " "); got != want.argv || a.Format != want.format || a.Timeout.Std().String() != want.timeout {
			t.Errorf("%s = %q %s %s, want %+v", name, got, a.Format, a.Timeout.Std(), want)
		}
	}
	if got := cfg.StageAgents("reviewer"); strings.Join(got, ",") != "gemini" {
		t.Errorf("reviewer pool %v", got)
	}
}

// TestLoadConfigDelivery: delivery defaults to none; a mode outside
// #DeliveryMode is refused at its line.
func TestLoadConfigDelivery(t *testing.T) {
	cfg, err := LoadConfig("ralph.yaml", []byte("agents: {coder: {command: [x]}}\n"))
	if err != nil || cfg.Delivery.Mode != "none" || cfg.Delivery.Author != nil {
		t.Fatalf("default delivery %+v, err %v", cfg.Delivery, err)
	}
	cfg, err = LoadConfig("ralph.yaml", []byte("agents: {coder: {command: [x]}}\ndelivery: {mode: pr, branch: bot/loop, author: {name: Bot, email: bot@example.com}}\n"))
	if err != nil || cfg.Delivery.Mode != "pr" || cfg.Delivery.Branch != "bot/loop" || cfg.Delivery.Author == nil || cfg.Delivery.Author.Email != "bot@example.com" {
		t.Fatalf("delivery %+v, err %v", cfg.Delivery, err)
	}
	_, err = LoadConfig("ralph.yaml", []byte("agents: {coder: {command: [x]}}\ndelivery: {mode: push}\n"))
	if err == nil || !strings.Contains(err.Error(), "ralph.yaml:2") || !strings.Contains(err.Error(), "delivery.mode") {
		t.Fatalf("a bad mode: %v", err)
	}
}

// TestUsedAgents: the agents of enabled stages and of the layers, once
// each, in order.
func TestUsedAgents(t *testing.T) {
	cfg := &Config{}
	cfg.Stages.Coder.Enabled, cfg.Stages.Coder.Agents = true, []string{"a", "b"}
	cfg.Stages.Reviewer.Enabled, cfg.Stages.Reviewer.Agents = false, []string{"off"}
	cfg.Stages.Tester.Enabled, cfg.Stages.Tester.Agents = true, []string{"b"}
	cfg.Layers.Judge, cfg.Layers.Review.Agent = "judge", "a"
	if got, want := cfg.UsedAgents(), []string{"a", "b", "judge"}; !slices.Equal(got, want) {
		t.Errorf("UsedAgents = %q, want %q", got, want)
	}
}
