package text_test

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/text"
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
			if got := text.CleanText(tc.in); got != tc.want {
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
		if got := text.OneLine(tc.in, tc.max); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestCodeFenceCannotBeClosedByTheText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "```",
		"a ``` fence inside": "````",
		"````` five, ` one":  "``````",
		"":                   "```",
	} {
		if got := text.CodeFence(in); got != want {
			t.Errorf("CodeFence(%q) = %q, want %q", in, got, want)
		}
	}
}
