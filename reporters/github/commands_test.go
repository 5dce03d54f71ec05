package github_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/reporters/github"
)

func TestWriteAnnotation(t *testing.T) {
	tests := []struct {
		name string
		a    github.Annotation
		want string
	}{
		{"plain", github.Annotation{Level: "error", Message: "boom"}, "::error::boom\n"},
		{"file and line", github.Annotation{Level: "warning", File: "specs/a.spec.md", Line: 1, Col: 2, Title: "t"},
			"::warning file=specs/a.spec.md,line=1,col=2,title=t::\n"},
		{"escaped properties", github.Annotation{Level: "error", File: "a,b:c.md", Title: "50%: x,y\r\nz"},
			"::error file=a%2Cb%3Ac.md,title=50%25%3A x%2Cy%0Az::\n"},
		{"escaped message", github.Annotation{Level: "notice", Message: "100%\nline two\r\nthree: a,b ::x::"},
			"::notice::100%25%0Aline two%0Athree: a,b ::x::\n"},
		{"control characters", github.Annotation{Level: "error", Message: "\x1b[31mred\x1b[0m\x00\r"},
			"::error::red\uFFFD\uFFFD\n"},
		{"unknown level", github.Annotation{Level: "fatal", Message: "m"}, "::notice::m\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := github.WriteAnnotation(&buf, tc.a); err != nil {
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
		outputs []github.Output
		want    string
	}{
		{"one line", []github.Output{{"status", "done"}, {"junit", ""}}, "status=done\njunit=\n"},
		{"multi-line", []github.Output{{"message", "a\nb"}},
			"message<<ghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\na\nb\nghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n"},
		{"CR LF", []github.Output{{"message", "a\r\nb\x00"}},
			"message<<ghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\na\nb\uFFFD\nghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := github.WriteOutputs(&buf, tc.outputs, fixedRand{}); err != nil {
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
		o    github.Output
		want string
	}{
		{"bad name", github.Output{"a=b", "x"}, "invalid name"},
		{"empty name", github.Output{"", "x"}, "invalid name"},
		// The only delimiter fixedRand can make is in the value.
		{"delimiter in value", github.Output{"m", "x\nghadelimiter_5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n"}, "no delimiter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := github.WriteOutputs(&bytes.Buffer{}, []github.Output{tc.o}, fixedRand{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestStopCommands(t *testing.T) {
	var buf bytes.Buffer
	resume, err := github.StopCommands(&buf, fixedRand{})
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
	a, _ := github.Token(nil)
	b, _ := github.Token(nil)
	if len(a) != 32 || a == b {
		t.Errorf("tokens %q and %q: want two different random 32-character tokens", a, b)
	}
}

func TestGroup(t *testing.T) {
	var buf bytes.Buffer
	end, err := github.Group(&buf, "rotation 3: specs/a.spec.md\n(coder)")
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
