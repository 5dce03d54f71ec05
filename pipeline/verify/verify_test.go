package verify

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// input is a claim whose final text is text, with the phrases watched.
func input(t *testing.T, text string, watch ...string) (Input, *bytes.Buffer) {
	t.Helper()
	rep := agent.Report{Tail: text}
	for _, w := range watch {
		if strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
			rep.Phrases = append(rep.Phrases, w)
		}
	}
	var log bytes.Buffer
	return Input{Root: t.TempDir(), Promise: "DONE_X", Output: rep, Log: zerolog.New(&log)}, &log
}

func TestNewPicksEveryMethodAndRefusesUnknown(t *testing.T) {
	for _, name := range []string{StringMatch, External, Semantic, MultiStage} {
		if _, err := New(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := New("telepathy"); err == nil || !strings.Contains(err.Error(), `unknown verification method "telepathy"`) {
		t.Errorf("unknown method: %v", err)
	}
	if r := Verify(context.Background(), "telepathy", Input{}, schema.VerificationConfig{}); r.Passed || !strings.Contains(r.Reason, "unknown") {
		t.Errorf("Verify with an unknown method: %+v", r)
	}
}

func TestStringMatch(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		watched    bool
		pass       bool
	}{
		{"promise present", "work\n<promise>DONE_X</promise>", true, true},
		{"case-insensitive", "<promise>done_x</promise>", true, true},
		{"found in the tail when not watched", "said done_x somewhere", false, true},
		{"absent", "<promise>OTHER</promise>", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var watch []string
			if tc.watched {
				watch = []string{"DONE_X"}
			}
			in, _ := input(t, tc.text, watch...)
			r := Verify(context.Background(), StringMatch, in, schema.VerificationConfig{})
			if r.Passed != tc.pass {
				t.Fatalf("%+v", r)
			}
			if !tc.pass && r.Reason != "Promise 'DONE_X' not found in output" {
				t.Errorf("reason %q", r.Reason)
			}
		})
	}
}

func TestMatcherFindsNeedlesAcrossChunks(t *testing.T) {
	text := "lots of output ... 3 passed, FAILED 0 ... end"
	for _, size := range []int{1, 2, 3, 7, 100} {
		for _, needle := range []string{"passed", "FAILED", "end", "lots"} {
			m := &matcher{needle: []byte(needle)}
			for i := 0; i < len(text); i += size {
				_, _ = m.Write([]byte(text[i:min(len(text), i+size)]))
			}
			if !m.found {
				t.Errorf("chunk %d: %q not found", size, needle)
			}
			if len(m.carry) >= len(needle) {
				t.Errorf("carry grew to %d", len(m.carry))
			}
		}
		m := &matcher{needle: []byte("failed")} // case-sensitive, as the spec's `in`
		_, _ = m.Write([]byte(text))
		if m.found {
			t.Error("matched with another case")
		}
	}
}

func TestJudgePromptIsTheSpecs(t *testing.T) {
	got := JudgePrompt([]string{"a", "b"}, "OUT")
	want := "Analyze the following output and determine if these criteria are met:\n\nCriteria to verify:\n- a\n- b\n\nOutput to analyze:\nOUT\n\nRespond with ONLY one of:\n- VERIFIED: All criteria appear to be met\n- NOT_VERIFIED: <reason>\n"
	if got != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
	}
	long := strings.Repeat("é", JudgeOutputChars+10)
	if ex := JudgeExcerpt(agent.Report{Tail: long}); len([]rune(ex)) != JudgeOutputChars {
		t.Errorf("excerpt of %d runes", len([]rune(ex)))
	}
	if ex := JudgeExcerpt(agent.Report{Tail: "short"}); ex != "short" {
		t.Errorf("excerpt %q", ex)
	}
}

func TestParseJudge(t *testing.T) {
	for _, tc := range []struct {
		answer   string
		ok, fail bool // verified, parse error
		reason   string
	}{
		{"VERIFIED", true, false, ""},
		{"VERIFIED: All criteria appear to be met", true, false, ""},
		{"Thinking...\n- **VERIFIED**: yes\n", true, false, ""},
		{"NOT_VERIFIED: login returns 500", false, false, "login returns 500"},
		{"verified: lower case", true, false, ""},
		{"NOT_VERIFIED", false, false, "no reason given"},
		{"VERIFIED\nNOT_VERIFIED: changed my mind", false, false, "changed my mind"},
		{"I think it is fine", false, true, ""},
		{"UNVERIFIED", false, true, ""},
		{"", false, true, ""},
	} {
		ok, reason, err := ParseJudge(tc.answer)
		if ok != tc.ok || (err != nil) != tc.fail || reason != tc.reason {
			t.Errorf("%q: %v %q %v", tc.answer, ok, reason, err)
		}
	}
}

// fakeJudge answers with a fixed text or error and records its calls.
type fakeJudge struct {
	answer string
	err    error
	calls  []string // name|model
	prompt string
}

func (f *fakeJudge) Judge(_ context.Context, name, model, prompt string) (string, error) {
	f.calls = append(f.calls, name+"|"+model)
	f.prompt = prompt
	return f.answer, f.err
}

func TestSemantic(t *testing.T) {
	items := func(s ...string) *schema.CheckFor { return &schema.CheckFor{Items: s} }
	for _, tc := range []struct {
		name     string
		text     string
		cfg      schema.VerificationConfig
		judge    *fakeJudge
		deflt    string
		pass     bool
		reason   string // prefix
		calls    string
		logError bool
	}{
		{"negative pattern rejects before the judge", "done_x but TODO: finish", schema.VerificationConfig{NegativePatterns: []string{"FIXME", "todo"}, Judge: "j"}, &fakeJudge{answer: "VERIFIED"}, "", false, "Found negative pattern: todo", "", false},
		{"judge verifies", "<promise>DONE_X</promise>", schema.VerificationConfig{CheckFor: items("a"), Judge: "j", Model: "haiku"}, &fakeJudge{answer: "VERIFIED"}, "", true, "Judge j: VERIFIED", "j|haiku", false},
		{"judge refuses", "<promise>DONE_X</promise>", schema.VerificationConfig{Judge: "j"}, &fakeJudge{answer: "NOT_VERIFIED: no tests"}, "", false, "NOT_VERIFIED: no tests", "j|", false},
		{"config-level default judge", "<promise>DONE_X</promise>", schema.VerificationConfig{}, &fakeJudge{answer: "VERIFIED"}, "dj", true, "Judge dj", "dj|", false},
		{"criteria judge wins over the default", "x DONE_X", schema.VerificationConfig{Judge: "j"}, &fakeJudge{answer: "VERIFIED"}, "dj", true, "Judge j", "j|", false},
		{"no judge configured: string_match fallback passes", "<promise>DONE_X</promise>", schema.VerificationConfig{}, nil, "", true, ModelError + " (no judge agent configured", "", true},
		{"judge fails: fallback to string_match", "<promise>DONE_X</promise>", schema.VerificationConfig{Judge: "j"}, &fakeJudge{err: errors.New("judge j timed out after 1s")}, "", true, ModelError + " (judge j timed out after 1s); fell back to string_match: Promise found in output", "j|", true},
		{"garbage answer: fallback to string_match", "<promise>DONE_X</promise>", schema.VerificationConfig{Judge: "j"}, &fakeJudge{answer: "looks good to me"}, "", true, ModelError + " (the judge answered neither", "j|", true},
		{"fallback fails without the promise", "no promise here", schema.VerificationConfig{Judge: "j"}, &fakeJudge{err: errors.New("boom")}, "", false, ModelError + " (boom); fell back to string_match: Promise 'DONE_X' not found in output", "j|", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, log := input(t, tc.text, Watch("DONE_X", tc.cfg)...)
			in.DefaultJudge = tc.deflt
			if tc.judge != nil {
				in.Judge = tc.judge
			}
			r := Verify(context.Background(), Semantic, in, tc.cfg)
			if r.Passed != tc.pass || !strings.HasPrefix(r.Reason, tc.reason) {
				t.Fatalf("got %v %q", r.Passed, r.Reason)
			}
			if tc.judge != nil && strings.Join(tc.judge.calls, ",") != tc.calls {
				t.Errorf("judge calls %v", tc.judge.calls)
			}
			if got := strings.Contains(log.String(), `"level":"error"`) && strings.Contains(log.String(), ModelError); got != tc.logError {
				t.Errorf("error logged %v: %s", got, log)
			}
		})
	}
}

func TestSemanticCheckForAcceptanceCriteriaAndPrompt(t *testing.T) {
	in, _ := input(t, "the output", "DONE_X")
	in.AcceptanceCriteria = []string{"login works", "401 on bad token"}
	j := &fakeJudge{answer: "VERIFIED"}
	in.Judge = j
	Verify(context.Background(), Semantic, in, schema.VerificationConfig{Judge: "j", CheckFor: &schema.CheckFor{AcceptanceCriteria: true}})
	if j.prompt != JudgePrompt([]string{"login works", "401 on bad token"}, "the output") {
		t.Errorf("prompt:\n%s", j.prompt)
	}
}

func script(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func dur(d time.Duration) *schema.Duration { x := schema.Duration(d); return &x }

func TestExternal(t *testing.T) {
	shell := func(s string) *schema.Command { return &schema.Command{Shell: s} }
	for _, tc := range []struct {
		name   string
		cfg    schema.VerificationConfig
		pass   bool
		reason string
		logged bool // an error with the command is logged
	}{
		{"exit 0 passes", schema.VerificationConfig{Command: shell("true")}, true, "External verification passed", false},
		{"exit code differs", schema.VerificationConfig{Command: shell("exit 3")}, false, "Command exited with 3, expected 0", false},
		{"success_exit_code", schema.VerificationConfig{Command: shell("exit 3"), SuccessExitCode: 3}, true, "External verification passed", false},
		{"argv command", schema.VerificationConfig{Command: &schema.Command{Argv: []string{"sh", "-c", "echo 3 passed"}}, OutputContains: "passed"}, true, "External verification passed", false},
		{"output_contains missing", schema.VerificationConfig{Command: shell("echo 3 failed"), OutputContains: "passed"}, false, "Output doesn't contain: passed", false},
		{"output_contains is case-sensitive", schema.VerificationConfig{Command: shell("echo PASSED"), OutputContains: "passed"}, false, "Output doesn't contain: passed", false},
		{"stderr counts", schema.VerificationConfig{Command: shell("echo passed >&2"), OutputContains: "passed"}, true, "External verification passed", false},
		{"output_not_contains present", schema.VerificationConfig{Command: shell("echo test FAILED"), OutputNotContains: "FAILED"}, false, "Output contains forbidden: FAILED", false},
		{"output_not_contains absent", schema.VerificationConfig{Command: shell("echo ok"), OutputNotContains: "FAILED"}, true, "External verification passed", false},
		{"timeout in seconds", schema.VerificationConfig{Command: shell("sleep 5"), Timeout: dur(time.Second)}, false, "Command timed out after 1s", true},
		{"timeout as a duration", schema.VerificationConfig{Command: shell("sleep 5 & wait"), Timeout: dur(300 * time.Millisecond)}, false, "Command timed out after 0.3s", true},
		{"working_dir", schema.VerificationConfig{Command: shell("test -f here.txt"), WorkingDir: "sub"}, true, "External verification passed", false},
		{"working_dir runs relative to the repository", schema.VerificationConfig{Command: shell("test -f here.txt")}, false, "Command exited with 1, expected 0", false},
		{"working_dir escaping the repository", schema.VerificationConfig{Command: shell("true"), WorkingDir: "../x"}, false, "Command failed: working_dir ../x escapes the repository", true},
		{"absolute working_dir", schema.VerificationConfig{Command: shell("true"), WorkingDir: "/tmp"}, false, "Command failed: working_dir /tmp must be relative", true},
		{"working_dir through a symlink out", schema.VerificationConfig{Command: shell("true"), WorkingDir: "out"}, false, "Command failed: working_dir out escapes the repository (through a symbolic link)", true},
		{"missing working_dir", schema.VerificationConfig{Command: shell("true"), WorkingDir: "nope"}, false, "Command failed: working_dir nope", true},
		{"command cannot start", schema.VerificationConfig{Command: &schema.Command{Argv: []string{"/no/such/verifier"}}}, false, "Command failed: starting agent", true},
		{"no command", schema.VerificationConfig{}, false, "No command specified for external verification", false},
		{"script in the repository", schema.VerificationConfig{Command: shell("sh check.sh"), OutputContains: "ok"}, true, "External verification passed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, log := input(t, "")
			_ = os.Mkdir(filepath.Join(in.Root, "sub"), 0o755)
			script(t, in.Root, "sub/here.txt", "")
			script(t, in.Root, "check.sh", "echo ok\n")
			_ = os.Symlink(os.TempDir(), filepath.Join(in.Root, "out"))
			var tr bytes.Buffer
			in.Transcript = &tr
			start := time.Now()
			r := Verify(context.Background(), External, in, tc.cfg)
			if r.Passed != tc.pass || !strings.HasPrefix(r.Reason, tc.reason) {
				t.Fatalf("got %v %q", r.Passed, r.Reason)
			}
			if got := strings.Contains(log.String(), `"level":"error"`) && strings.Contains(log.String(), `"command":`); got != tc.logged {
				t.Errorf("error with the command logged: %v: %s", got, log)
			}
			if time.Since(start) > 4*time.Second {
				t.Errorf("took %s: the timeout did not stop the process group", time.Since(start))
			}
		})
	}
}

func TestExternalDefaultTimeoutIsTheSpecs(t *testing.T) {
	if DefaultTimeout != 300*time.Second {
		t.Fatal(DefaultTimeout)
	}
}
