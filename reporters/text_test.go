package reporters_test

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters"
)

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR", "50%\rdone", "50%\uFFFDdone"},
		{"NUL and bell", "a\x00b\x07", "a\uFFFDb\uFFFD"},
		{"ANSI colours", "\x1b[1;31mFAIL\x1b[0m ok", "FAIL ok"},
		{"OSC title", "\x1b]0;title\x07text\x1b]8;;url\x1b\\link", "textlink"},
		{"lone ESC", "a\x1bb", "a\uFFFDb"},
		{"unfinished CSI", "a\x1b[12", "a\uFFFD[12"},
		{"DEL and C1", "a\x7fb\u0085c", "a\uFFFDb\uFFFDc"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"noncharacters", "a\uFFFEb\uFFFFc", "a\uFFFDb\uFFFDc"},
		{"replacement char kept", "a\uFFFDb é 日本", "a\uFFFDb é 日本"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reporters.CleanText(tc.in); got != tc.want {
				t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"a\n  b\r\n\tc ", 0, "a b c"},
		{"abcdef", 4, "abc…"},
		{"ab cdef", 4, "ab…"},
		{"日本語です", 3, "日本…"},
		{"short", 10, "short"},
	}
	for _, tc := range tests {
		if got := reporters.OneLine(tc.in, tc.max); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestRotationLine(t *testing.T) {
	tests := []struct {
		name string
		rot  reporters.Rotation
		want string
	}{
		{"done", reporters.Rotation{Iteration: 3, Stage: "coder", AgentStatus: "DONE", Status: "DONE", Counter: 2, ChangedFiles: []string{"a", "b"}},
			"iteration=3 stage=coder status=DONE counter=2/3 changed=2"},
		{"rejected", reporters.Rotation{Iteration: 4, Stage: "qa", AgentStatus: "DONE", Status: "REJECTED", Reason: "test\nfailed", TimedOut: true},
			"iteration=4 stage=qa status=REJECTED agent_status=DONE counter=0/3 changed=0 timed_out reason=test failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reporters.RotationLine(tc.rot); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRotationLogKeepsTheLast(t *testing.T) {
	rots := make([]reporters.Rotation, 60)
	for i := range rots {
		rots[i].Iteration = i + 1
	}
	lines := reporters.RotationLog(rots, 0)
	if len(lines) != reporters.MaxLogLines+1 || lines[0] != "(10 earlier rotations not shown)" || !strings.HasPrefix(lines[1], "iteration=11 ") {
		t.Errorf("RotationLog kept %d lines starting %q, %q", len(lines), lines[0], lines[1])
	}
	if got := reporters.RotationLog(nil, 0); len(got) != 0 {
		t.Errorf("RotationLog(nil) = %q", got)
	}
}

func TestCodeFenceCannotBeClosedByTheText(t *testing.T) {
	for text, want := range map[string]string{
		"plain":              "```",
		"a ``` fence inside": "````",
		"````` five, ` one":  "``````",
		"":                   "```",
	} {
		if got := reporters.CodeFence(text); got != want {
			t.Errorf("CodeFence(%q) = %q, want %q", text, got, want)
		}
	}
}
