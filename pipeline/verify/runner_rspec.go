package verify

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// rspec: its JSON formatter is added to a file, beside the progress
// formatter on stdout.
var rspec = Runner{
	Name:     "rspec",
	Commands: []string{"`rspec`, `bundle exec rspec`, `bin/rspec`, at a command position"},
	Files:    None("rspec is recognised by its command (.rspec and spec_helper.rb are guarded as configuration)"),
	Report:   []string{"`--format progress --format json --out FILE` appended: each example named `FILE/FULL DESCRIPTION`, `pending` (skipped, xit, pending) read as skipped"},
	Env:      None("SPEC_OPTS could add the JSON formatter, but ralph-ci reads rspec's report only where it runs rspec itself: name rspec in the verification command"),
	Config: []ConfigFile{
		{".rspec", []string{"whole file (--tag, --example, --pattern, --exclude-pattern, --require)"}},
		{"spec_helper.rb", []string{"filter_run, filter_run_excluding, filter_run_when_matching, hooks, module-level statements"}},
		{"rails_helper.rb", []string{"the same"}},
	},
	Markers: Markers{
		Skip:       []string{`^\s*x(it|specify|example|scenario|describe|context|feature)\b`, `^\s*skip\b`, `\bskip:\s*(true|["'])`, `,\s*:skip\b`},
		ExpectFail: []string{`^\s*pending\b`, `\bpending:\s*(true|["'])`},
		Focus:      []string{`^\s*f(it|specify|example|describe|context)\b`, `\bfocus:\s*true`, `,\s*:focus\b`},
		Invert:     None("rspec's inversion is pending (a pending example that passes fails), listed as expected to fail"),
		Todo:       []string{`^\s*(it|specify|example)\s+["'][^"']*["']\s*$`},
	},
	Detect:    []string{`defined\?\(\s*RSpec\s*\)`, `ENV\[["']RSPEC`, `\$(PROGRAM_NAME|0)\b.*rspec`},
	NoTests:   []string{`0 examples, 0 failures`, `No examples found`},
	TestFiles: []string{"*_spec.rb"},
	TestStart: []string{`^\s*(it|specify|example|scenario|xit|fit|xspecify|fspecify)\b\s*(\(|["'{]|do\b|$)`},

	invoked: func(c Call) bool { return rspecAt.MatchString(c.Shell) },
	preset: func(c Call) (Preset, bool) {
		own := func(w string) bool {
			return w == "-f" || w == "-o" || strings.HasPrefix(w, "--format") || strings.HasPrefix(w, "--out")
		}
		if slices.ContainsFunc(c.Words, own) || c.Words == nil && (strings.Contains(c.Shell, "--format") || strings.Contains(c.Shell, "--out")) {
			return Preset{}, false // its own formatters: name the report in test_report
		}
		file := filepath.Join(c.Tmp, "rspec.json")
		add := []string{"--format", "progress", "--format", "json", "--out", file}
		quoted := make([]string, len(add))
		for i, a := range add {
			quoted[i] = shellQuote(a)
		}
		shell := rspecAt.ReplaceAllString(c.Shell, "${1}${2} "+strings.ReplaceAll(strings.Join(quoted, " "), "$", "$$")+"${3}")
		var words []string
		if c.Words != nil {
			i := slices.IndexFunc(c.Words, func(w string) bool { return filepath.Base(w) == "rspec" })
			words = slices.Insert(slices.Clone(c.Words), i+1, add...)
		}
		return Preset{Runner: "rspec", Command: c.rebuild(shell, words), Report: file, Added: strings.Join(add, " ")}, true
	},
}

// rspecAt finds rspec at a command position.
var rspecAt = atCommand(`(?:bundle\s+exec\s+)?(?:bin/)?rspec`)

// ParseRSpecJSON reads rspec's JSON report: each example named
// "FILE/FULL DESCRIPTION" (FILE without its leading ./); a pending
// example counts as skipped, a failed one as failed.
func ParseRSpecJSON(data []byte) (TestRun, error) {
	var doc struct {
		Examples *[]struct {
			FullDescription string `json:"full_description"`
			Status          string `json:"status"`
			FilePath        string `json:"file_path"`
		} `json:"examples"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return TestRun{}, fmt.Errorf("rspec JSON report: %w", err)
	}
	if doc.Examples == nil {
		return TestRun{}, fmt.Errorf("rspec JSON report: no examples")
	}
	verdict := map[string]string{}
	for _, e := range *doc.Examples {
		name := strings.TrimPrefix(e.FilePath, "./") + "/" + e.FullDescription
		verdict = result(verdict, name, e.Status)
	}
	return runOf(true, verdict, "passed", "pending"), nil
}
