package schema

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The loaders take user input: whatever the bytes, they return a config or
// problems, never panic, and problems always name the file.
func FuzzLoadConfig(f *testing.F) {
	f.Add("ralph.yaml", []byte(minimalYAML))
	f.Add("ralph.json", []byte(`{"agents": {"coder": {"command": ["sh"], "timeout": "1h"}}, "budgets": {"cost_usd": 1}}`))
	f.Add("ralph.cue", []byte("agents: coder: command: [\"sh\"]\nloop: enabled: false\n"))
	f.Add("ralph.yaml", []byte("agents: {coder: {command: []}}\nstages: {qa: {agents: [x]}}\n"))
	f.Add("ralph.yaml", []byte("&a [*a]"))
	f.Add("ralph.cue", []byte("import \"strings\"\nagents: coder: command: [strings.ToUpper(\"sh\")]\n"))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		file := "ralph" + filepath.Ext(name)
		cfg, err := LoadConfig(file, src)
		checkOutcome(t, file, cfg != nil, err)
	})
}

func FuzzLoadFrontMatter(f *testing.F) {
	f.Add([]byte("---\ncompletion:\n  outcome: o\n  acceptance_criteria: [a]\n---\nbody"))
	f.Add([]byte("---\ncontracts: [{verification: auto, steps: [x]}]\n---\n"))
	f.Add([]byte("---\ncompletion: {outcome: o, acceptance_criteria: [a], qa: {promise: Q, description: d, verification_method: multi_stage, verification_config: {stages: [{name: s}]}}}\n---\n"))
	f.Add([]byte("---\n"))
	if files, _ := filepath.Glob("testdata/spec-examples/*.yaml"); len(files) > 0 {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(append(append([]byte("---\n"), b...), "\n---\n"...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, err := LoadFrontMatter("specs/f.spec.md", src)
		checkOutcome(t, "specs/f.spec.md", fm != nil, err)
	})
}

func checkOutcome(t *testing.T, file string, ok bool, err error) {
	t.Helper()
	if ok == (err != nil) {
		t.Fatalf("got a value: %v and an error: %v", ok, err)
	}
	if err == nil {
		return
	}
	var ps Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		t.Fatalf("error %v (%T) is not a list of problems", err, err)
	}
	for _, p := range ps {
		if p.File != file || p.Msg == "" {
			t.Fatalf("problem %+v does not name %s with a message", p, file)
		}
	}
}

// FuzzDuration: any JSON value decodes to a duration that is never
// negative (an overflow is an error, not a wrapped value), or to an error.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{`"30m"`, `300`, `9223372037`, `1e300`, `-1`, `"-5s"`, `"2562047h47m16.854775807s"`, `"2562048h"`, `NaN`, `0.0000000001`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Duration
		if err := d.UnmarshalJSON(b); err == nil && d.Std() < 0 && !bytes.HasPrefix(bytes.TrimSpace(b), []byte(`"`)) {
			t.Fatalf("%s decoded to a negative duration %v", b, d.Std())
		}
	})
}
