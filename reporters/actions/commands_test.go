package actions_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

func TestWriteAnnotation(t *testing.T) {
	tests := []struct {
		name string
		a    actions.Annotation
		want string
	}{
		{"plain", actions.Annotation{Level: "error", Message: "boom"}, "::error::boom\n"},
		{"file and line", actions.Annotation{Level: "warning", File: "specs/a.spec.md", Line: 1, Col: 2, Title: "t"},
			"::warning file=specs/a.spec.md,line=1,col=2,title=t::\n"},
		{"escaped properties", actions.Annotation{Level: "error", File: "a,b:c.md", Title: "50%: x,y\r\nz"},
			"::error file=a%2Cb%3Ac.md,title=50%25%3A x%2Cy%0Az::\n"},
		{"escaped message", actions.Annotation{Level: "notice", Message: "100%\nline two\r\nthree: a,b ::x::"},
			"::notice::100%25%0Aline two%0Athree: a,b ::x::\n"},
		{"control characters", actions.Annotation{Level: "error", Message: "\x1b[31mred\x1b[0m\x00\r"},
			"::error::red\uFFFD\uFFFD\n"},
		{"unknown level", actions.Annotation{Level: "fatal", Message: "m"}, "::notice::m\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := actions.WriteAnnotation(&buf, tc.a); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got  %q\nwant %q", buf.String(), tc.want)
			}
		})
	}
}

func TestWriteOutputs(t *testing.T) {
	tests := []struct {
		name    string
		outputs []actions.Output
		want    string
	}{
		{"one line", []actions.Output{{"status", "done"}, {"junit", ""}}, "status=done\njunit=\n"},
		{"multi-line", []actions.Output{{"message", "a\nb"}},
			"message<<ghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\na\nb\nghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n"},
		{"CR LF", []actions.Output{{"message", "a\r\nb\x00"}},
			"message<<ghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\na\nb\uFFFD\nghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := actions.WriteOutputs(&buf, tc.outputs, fixedRand{}); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got  %q\nwant %q", buf.String(), tc.want)
			}
		})
	}
}

func TestWriteOutputsErrors(t *testing.T) {
	tests := []struct {
		name string
		o    actions.Output
		want string
	}{
		{"bad name", actions.Output{"a=b", "x"}, "invalid name"},
		{"empty name", actions.Output{"", "x"}, "invalid name"},
		// The only delimiter fixedRand can make is in the value.
		{"delimiter in value", actions.Output{"m", "x\nghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n"}, "no delimiter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := actions.WriteOutputs(&bytes.Buffer{}, []actions.Output{tc.o}, fixedRand{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestStopCommands(t *testing.T) {
	var buf bytes.Buffer
	resume, err := actions.StopCommands(&buf, fixedRand{})
	if err != nil {
		t.Fatal(err)
	}
	buf.WriteString("agent says ::error::owned")
	if err := resume(); err != nil {
		t.Fatal(err)
	}
	want := "\n::stop-commands::5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\nagent says ::error::owned\n::5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a::\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
	a, _ := actions.Token(nil)
	b, _ := actions.Token(nil)
	if len(a) != 32 || a == b {
		t.Errorf("tokens %q and %q: want two different random 32-character tokens", a, b)
	}
}

func TestGroup(t *testing.T) {
	var buf bytes.Buffer
	end, err := actions.Group(&buf, "rotation 3: specs/a.spec.md\n(coder)")
	if err != nil {
		t.Fatal(err)
	}
	if err := end(); err != nil {
		t.Fatal(err)
	}
	if want := "::group::rotation 3: specs/a.spec.md (coder)\n::endgroup::\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
