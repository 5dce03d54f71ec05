package actionstep

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	c := Context{"runner.temp": "/tmp/r", "inputs.json": "", "steps.a.outputs.bin": "/a"}
	tests := []struct{ in, want, err string }{
		{in: "${{ runner.temp }}/bin", want: "/tmp/r/bin"},
		{in: "${{ steps.b.outputs.bin || steps.a.outputs.bin }}", want: "/a"},
		{in: "${{ inputs.json || runner.temp }}", want: "/tmp/r"},
		{in: "${{ steps.a.outputs.bin == '/a' }}", want: "true"},
		{in: "${{ steps.x.outputs.build == 'true' }}", want: "false"},
		{in: "${{ github.token }}", err: "the test context has no github.token"},
		{in: "${{ hashFiles('go.sum') }}", err: "unsupported expression"},
		{in: "${{ runner.temp == runner.temp }}", err: "only a 'literal' may follow =="},
	}
	for _, tt := range tests {
		got, err := c.Expand(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Expand(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestInputsDefaultsAndUnknown(t *testing.T) {
	a := &Action{Inputs: map[string]Input{"token": {Default: "${{ github.token }}"}, "command": {Default: "run"}}}
	c := Context{"github.token": "tok"}
	if err := c.Inputs(a, map[string]string{"command": "check"}); err != nil {
		t.Fatal(err)
	}
	if c["inputs.token"] != "tok" || c["inputs.command"] != "check" {
		t.Errorf("inputs = %v", c)
	}
	if err := c.Inputs(a, map[string]string{"comand": "check"}); err == nil || !strings.Contains(err.Error(), `no input "comand"`) {
		t.Errorf("a misspelt input: error = %v", err)
	}
}

func TestParseOutputs(t *testing.T) {
	got, err := ParseOutputs("bin=/x/ralph-ci\nmessage<<EOF_1\ntwo\nlines\nEOF_1\nempty=\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"bin": "/x/ralph-ci", "message": "two\nlines", "empty": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseOutputs = %q, want %q", got, want)
	}
	for _, bad := range []string{"no equals sign\n", "m<<EOF\nunclosed\n"} {
		if _, err := ParseOutputs(bad); err == nil {
			t.Errorf("ParseOutputs(%q): no error", bad)
		}
	}
}
