package verify

import "strings"

// go test: -json is added after "go test" in the command and the events
// are read from the output (the log and the matchers see go test -v's
// text). Behind a script, GOFLAGS=-v makes it print a result line per
// test (-json there would change what go vet prints and how it exits),
// and `go test -list . ./...` lists the tests when the stage starts.
// Where only a package's ok line shows, the package is judged by it.
var goTest = Runner{
	Name:     "go test",
	Commands: []string{"`go test`, anywhere in the command"},
	Files:    []string{"go.mod"},
	Report: []string{
		"`-json` added after `go test`; its events read from the output",
		"behind a script: collection step `go test -list . ./...`, the `--- PASS|FAIL|SKIP: TestX` lines of `-v`, each of the package its `ok`/`FAIL` line names; with only `ok PACKAGE`, the package",
	},
	Env: []string{"`GOFLAGS=-v` (appended to the inherited value; not `-json`, which changes what `go vet` prints and how it exits)"},
	Config: []ConfigFile{
		{"*_test.go", []string{"build constraints", "TestMain", "init"}},
	},
	Markers: Markers{
		Skip:       []string{`\bt\.Skip(f|Now)?\(`, `\bb\.Skip(f|Now)?\(`},
		ExpectFail: None("go test has no expected-failure marker"),
		Focus:      None("go test selects with -run, and the command is guarded"),
		Invert:     None("go test has no marker that passes a failing test"),
		Todo:       None("go test has no todo marker"),
	},
	Detect:    []string{`\btesting\.Testing\(\)`, `flag\.Lookup\(\s*"test\.`, `strings\.HasSuffix\(os\.Args\[0\],\s*"\.test"\)`},
	NoTests:   []string{`\[no test files\]`, `testing: warning: no tests to run`},
	TestFiles: []string{"*_test.go"},
	TestStart: []string{`^func\s+(Test|Fuzz|Benchmark|Example)\w*\(`},

	invoked: func(c Call) bool { return goTestAt.MatchString(c.Shell) },
	preset: func(c Call) (Preset, bool) {
		if strings.Contains(c.Shell, "-json") {
			return Preset{Runner: "go test", Command: c.cmd, Added: "nothing (reads its -json events)"}, true
		}
		return Preset{Runner: "go test", Command: c.rebuild(goTestAt.ReplaceAllString(c.Shell, "${1}${2} -json${3}"), insertAfter(c.Words, "test", "-json")), Added: "-json", GoJSON: true}, true
	},
	inProject: func(p Project) bool { return p.Exists("go.mod") },
	collect:   func(Project) []string { return []string{"go", "test", "-list", ".", "./..."} },
	lines:     func(list bool, _, _ string) lineReader { return &goLines{list: list} },
	env:       func(environ []string) []string { return []string{addTo(environ, "GOFLAGS", "-v")} },
}
