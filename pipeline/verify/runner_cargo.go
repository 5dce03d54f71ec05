package verify

import "strings"

// cargo test: --no-fail-fast is added, so that a failing test binary does
// not hide the later ones, and the harness's "test NAME ... ok" lines are
// read from the output.
var cargoTest = Runner{
	Name:     "cargo test",
	Commands: []string{"`cargo test` (with a `+toolchain`), anywhere in the command"},
	Files:    None("recognised by the command only: its harness's lines are read wherever they show"),
	Report:   []string{"`--no-fail-fast` added; the harness's `test NAME ... ok|FAILED|ignored` lines read under each `Running` line"},
	Env:      None("the harness prints a line per test by default"),
	Config: []ConfigFile{
		{"Cargo.toml", []string{"[lib]", "[[test]]", "[[bin]]", "[features]", "[profile.test]", "package.autotests"}},
	},
	Markers: Markers{
		Skip:       []string{`#\[ignore\b`, `#!\[cfg\(any\(\)\)\]`, `#\[cfg\(any\(\)\)\]`},
		ExpectFail: []string{`#\[should_panic\b`},
		Focus:      None("the harness selects with a filter on the command line, which is guarded"),
		Invert:     None("should_panic is the harness's only inversion, listed as expected to fail"),
		Todo:       None("the harness has no todo marker"),
	},
	Detect:    []string{`cfg!\(test\)`, `RUST_TEST_THREADS`, `env::var\("CARGO_TARGET_TMPDIR`},
	NoTests:   []string{`running 0 tests`},
	TestFiles: []string{"*.rs"},
	TestStart: []string{`^\s*#\[(\w+::)*test\b`},

	invoked: func(c Call) bool { return cargoTestAt.MatchString(c.Shell) },
	preset: func(c Call) (Preset, bool) {
		if strings.Contains(c.Shell, "--no-fail-fast") {
			return Preset{Runner: "cargo test", Command: c.cmd, Added: "nothing (reads the test harness's lines)"}, true
		}
		return Preset{Runner: "cargo test", Command: c.rebuild(cargoTestAt.ReplaceAllString(c.Shell, "${1}${2} --no-fail-fast${3}"), insertAfter(c.Words, "test", "--no-fail-fast")), Added: "--no-fail-fast"}, true
	},
}
