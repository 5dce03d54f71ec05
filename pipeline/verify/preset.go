package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/schema"
)

// A preset is how ralph-ci reads the tests of a verification command that
// names no test_report but runs a test runner it recognises: it adds the
// runner's own report to the command, or reads the runner's output, so
// that the stage gets a test inventory without the user configuring a
// report path. An explicit test_report always wins. Each runner's preset
// is declared in its file of the registry ([Runners], runner_*.go):
//
//   - pytest (pytest, py.test, python -m pytest, uv run / poetry run
//     pytest, anywhere in the command): PYTEST_ADDOPTS gets
//     --junitxml=FILE, FILE in a temporary folder outside the repository;
//   - jest, vitest (a command that is one jest or vitest invocation, or
//     npm test / npm run X / yarn X / pnpm X whose package.json script is
//     one): --json --outputFile=FILE (jest), --reporter=json
//     --outputFile.json=FILE (vitest) are appended;
//   - go test (anywhere in the command): -json is added after "go test",
//     and the events are read from the output (which the log, the
//     transcript and output_contains see as the text of go test -v);
//   - cargo test (anywhere): --no-fail-fast is added, so a failing test
//     binary does not hide the later ones, and the harness's lines are
//     read from the output;
//   - Maven (mvn, ./mvnw with a phase that runs tests) and Gradle
//     (gradle, ./gradlew with test, check or build): the reports they
//     write anyway, target/surefire-reports and build/test-results/test
//     in the command's folder.

// ReadsTests tells whether ralph-ci reads the tests of cfg's command, run
// in the repository at root: it names a test_report, runs a runner with a
// preset, or runs in a project whose runner has a collection step
// ([collectors]).
func ReadsTests(cfg schema.VerificationConfig, root string) bool {
	if cfg.TestReport != "" {
		return true
	}
	if cfg.Command == nil {
		return false
	}
	dir, err := WorkDir(root, cfg.WorkingDir)
	if err != nil {
		return false
	}
	if _, ok := FindPreset(*cfg.Command, dir, os.TempDir(), nil); ok {
		return true
	}
	return len(collectors(cfg, root, dir)) > 0
}

// Preset is the report a recognised runner gives a command.
type Preset struct {
	// Runner names the runner: pytest, jest, vitest, go test, cargo test,
	// maven, gradle.
	Runner string
	// Command is the command to run instead (the runner's flag added).
	Command schema.Command
	// Env holds KEY=VALUE entries for the command's environment.
	Env []string
	// Report is the report file or folder to read (absolute); "" when
	// the command's output is the report.
	Report string
	// Added says what ralph-ci added, for the log.
	Added string
	// GoJSON tells that ralph-ci added -json to go test: the output is
	// events, shown to the log and the matchers as their text.
	GoJSON bool
	// lines reads the runner's result lines from the output (nil: the
	// report, or the go test and cargo readers every command has).
	lines lineReader
}

// FindPreset returns the preset for cmd, run in dir (absolute), whose
// report files go in tmp (an empty folder ralph-ci owns, outside the
// repository); environ is the environment the command inherits
// (PYTEST_ADDOPTS is extended, not replaced). ok is false when cmd runs no
// runner ralph-ci recognises.
func FindPreset(cmd schema.Command, dir, tmp string, environ []string) (p Preset, ok bool) {
	c := newCall(cmd, dir, tmp, environ)
	for _, r := range runners {
		if r.invoked != nil && r.preset != nil && r.invoked(c) {
			return r.preset(c)
		}
	}
	return Preset{}, false
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true}

// The runners recognised at a command position of shell text: its start,
// or after ; & | ( or a newline, or after then, do, else, exec, time or
// env assignments. Group 1 is what precedes the runner's words, group 2
// the words, group 3 the space after them.
var (
	goTestAt    = atCommand(`go\s+test`)
	cargoTestAt = atCommand(`cargo\s+(?:\+\S+\s+)?test`)
	pytestAt    = atCommand(`(?:pytest|py\.test|python3?\s+-m\s+pytest|(?:uv|poetry|pipenv|hatch|pdm)\s+run\s+(?:python3?\s+-m\s+)?pytest)`)
)

func atCommand(words string) *lazyregexp.Regexp {
	return lazyregexp.New(`((?:^|[;&|(\n]|\b(?:then|do|else|exec|time)\s)\s*(?:\w+=\S*\s+)*)(` + words + `)(\s|$)`)
}

// simpleWords splits shell text that is one simple command into words;
// ok is false for anything else (a pipe, a list, a redirection,
// substitutions, quotes, a comment).
func simpleWords(shell string) (words []string, ok bool) {
	if shell == "" || strings.ContainsAny(shell, ";&|<>()`$\\'\"#\n{}*?[]") {
		return nil, false
	}
	return strings.Fields(shell), true
}

// jsRunner tells whether words are one jest or vitest invocation, or a
// package manager running a script of dir's package.json that is one;
// sep is "--" when flags for the runner must follow a "--" (npm, pnpm).
func jsRunner(words []string, dir string) (runner, sep string) {
	words = withoutAssignments(words)
	if len(words) == 0 {
		return "", ""
	}
	switch filepath.Base(words[0]) {
	case "npm", "pnpm", "yarn", "bun":
		script := scriptName(words)
		if script == "" {
			break
		}
		body := packageScript(dir, script)
		sw, ok := simpleWords(body)
		if !ok {
			return "", ""
		}
		if r := jsRunnerWords(sw); r != "" {
			if filepath.Base(words[0]) == "yarn" {
				return r, ""
			}
			return r, "--"
		}
		return "", ""
	}
	return jsRunnerWords(words), ""
}

// jsRunnerWords recognises a direct jest, vitest or mocha invocation.
func jsRunnerWords(words []string) string {
	words = withoutAssignments(words)
	for len(words) > 1 && (words[0] == "npx" || words[0] == "yarn" || words[0] == "pnpm" || words[0] == "bunx" || words[0] == "exec" || strings.HasPrefix(words[0], "--")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	switch filepath.Base(words[0]) {
	case "jest":
		return "jest"
	case "mocha", "_mocha":
		return "mocha"
	case "vitest":
		if len(words) == 1 || words[1] == "run" || strings.HasPrefix(words[1], "-") {
			return "vitest"
		}
	}
	return ""
}

// scriptName is the package.json script a package manager runs (npm test,
// npm t, npm run X, yarn X, pnpm X), "" for anything else.
func scriptName(words []string) string {
	if len(words) < 2 {
		return ""
	}
	switch w := words[1]; {
	case w == "test" || w == "t" && words[0] == "npm":
		return "test"
	case (w == "run" || w == "run-script") && len(words) > 2:
		return words[2]
	case words[0] != "npm" && !strings.HasPrefix(w, "-") && w != "exec" && w != "install" && w != "add":
		return w
	}
	return ""
}

// packageScript is the body of the script name in dir's package.json
// ("" when it cannot be read, or is a link that leads out of dir, the
// command's working folder, which WorkDir keeps inside the tree).
func packageScript(dir, name string) string {
	b, err := safefile.ReadIn(dir, filepath.Join(dir, "package.json"), safefile.ConfigLimit)
	if err != nil {
		return ""
	}
	var doc struct{ Scripts map[string]string }
	if json.Unmarshal(b, &doc) != nil {
		return ""
	}
	return doc.Scripts[name]
}

func withoutAssignments(words []string) []string {
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
		words = words[1:]
	}
	return words
}

// insertAfter is words with add after the first word equal to after (nil
// when words is nil).
func insertAfter(words []string, after, add string) []string {
	i := slices.Index(words, after)
	if i < 0 {
		return nil
	}
	return slices.Insert(slices.Clone(words), i+1, add)
}

var shellSafe = lazyregexp.New(`^[\w@%+=:,./-]+$`)

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
