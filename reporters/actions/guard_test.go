package actions

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

// commandLines are the lines the runner would read as workflow commands
// (split at \n and \r, leading white space trimmed, starting with "::").
func commandLines(log string) []string {
	var out []string
	for _, line := range strings.FieldsFunc(log, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if t := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(t, "::") {
			out = append(out, t)
		}
	}
	return out
}

// TestGuardEscapesLinesFromOutside: whatever text is written, in whatever
// pieces, no line of it is a workflow command, and it reads the same once
// the zero-width spaces are taken out; ralph-ci's own commands pass.
func TestGuardEscapesLinesFromOutside(t *testing.T) {
	type testCase struct {
		name   string
		writes []string
	}
	run := func(t *testing.T, tc testCase) {
		var buf bytes.Buffer
		g := NewGuard(&buf)
		for _, w := range tc.writes {
			if _, err := g.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = g.Write([]byte("\n"))
		if cmds := commandLines(buf.String()); len(cmds) > 0 {
			t.Errorf("workflow commands in the log: %q", cmds)
		}
		if got, want := strings.ReplaceAll(buf.String(), zwsp, ""), strings.Join(tc.writes, "")+"\n"; got != want {
			t.Errorf("the text changed: %q, want %q", got, want)
		}
	}
	for _, tc := range []testCase{
		{"a line", []string{"::error::x\n"}},
		{"after a newline", []string{"specs/a\n::error title=x::pwned.spec.md  0/3\n"}},
		{"after a carriage return", []string{"a\r::add-mask::x\r\n"}},
		{"indented", []string{"  \t::set-output name=a::b\n"}},
		{"after Unicode spaces", []string{"\u3000\u00a0\u2003::stop-commands::t\n"}},
		{"split between writes", []string{"ok\n", " ", ":", ":error::x\n"}},
		{"a space rune split between writes", []string{"\xe3\x80", "\x80::error::x"}},
		{"a single colon", []string{":x\n"}},
		{"text mid-line", []string{"a ::error::x\n"}},
		{"invalid bytes", []string{"\xff::error::x\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestGuardPassesOwnCommands: ralph-ci's own commands reach the log as
// they are, on lines of their own.
func TestGuardPassesOwnCommands(t *testing.T) {
	var buf bytes.Buffer
	g := NewGuard(&buf)
	_, _ = g.Write([]byte("text without a newline"))
	if err := WriteAnnotation(g, Annotation{Level: LevelError, Title: "t", Message: "m\n::error::x"}); err != nil {
		t.Fatal(err)
	}
	end, err := Group(g, "specs/a\n::error::x")
	if err != nil {
		t.Fatal(err)
	}
	_ = end()
	want := []string{"::error title=t::m%0A::error::x", "::group::specs/a ::error::x", "::endgroup::"}
	if got := commandLines(buf.String()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q\n%s", got, want, buf.String())
	}
}
