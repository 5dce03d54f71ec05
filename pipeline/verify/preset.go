package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/schema"
)

// A preset is how ralph-ci reads the tests of a verification command that
// names no test_report but runs a test runner it recognises: it adds the
// runner's own report to the command, or reads the runner's output, so
// that the stage gets a test inventory without the user configuring a
// report path. An explicit test_report always wins. The runners:
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
}

// FindPreset returns the preset for cmd, run in dir (absolute), whose
// report files go in tmp (an empty folder ralph-ci owns, outside the
// repository); environ is the environment the command inherits
// (PYTEST_ADDOPTS is extended, not replaced). ok is false when cmd runs no
// runner ralph-ci recognises.
func FindPreset(cmd schema.Command, dir, tmp string, environ []string) (p Preset, ok bool) {
	// One invocation given as argv is edited word by word; shell text
	// (a string, or sh -c TEXT) as text.
	shell, words, argv := cmd.Shell, []string(nil), cmd.Argv != nil
	if argv {
		if len(cmd.Argv) == 3 && shells[filepath.Base(cmd.Argv[0])] && cmd.Argv[1] == "-c" {
			shell, argv = cmd.Argv[2], false
		} else {
			words, shell = cmd.Argv, strings.Join(cmd.Argv, " ")
		}
	}
	if !argv {
		words, _ = simpleWords(shell)
	}
	rebuild := func(text string, w []string) schema.Command {
		switch {
		case argv:
			return schema.Command{Argv: w}
		case cmd.Argv != nil:
			return schema.Command{Argv: []string{cmd.Argv[0], "-c", text}}
		}
		return schema.Command{Shell: text}
	}
	// jest and vitest take their report as flags at the end of one
	// invocation.
	if runner, sep := jsRunner(words, dir); runner != "" {
		if slices.ContainsFunc(words, func(w string) bool { return w == "--json" || strings.HasPrefix(w, "--outputFile") }) {
			return Preset{}, false // the command writes its own report: name it in test_report
		}
		file := filepath.Join(tmp, runner+".json")
		add := []string{"--json", "--outputFile=" + file}
		if runner == "vitest" {
			add = []string{"--reporter=json", "--outputFile.json=" + file}
			if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, "--reporter") }) {
				add = append([]string{"--reporter=default"}, add...)
			}
		}
		if sep != "" && !slices.Contains(words, sep) {
			add = append([]string{sep}, add...)
		}
		quoted := make([]string, len(add))
		for i, a := range add {
			quoted[i] = shellQuote(a)
		}
		return Preset{Runner: runner, Command: rebuild(strings.TrimSpace(shell)+" "+strings.Join(quoted, " "), append(slices.Clone(words), add...)),
			Report: file, Added: strings.Join(add, " ")}, true
	}
	if runner, report := buildTool(words, dir); runner != "" {
		return Preset{Runner: runner, Command: cmd, Report: report, Added: "reads " + report}, true
	}
	switch {
	case goTestAt.MatchString(shell):
		if strings.Contains(shell, "-json") {
			return Preset{Runner: "go test", Command: cmd, Added: "nothing (reads its -json events)"}, true
		}
		return Preset{Runner: "go test", Command: rebuild(goTestAt.ReplaceAllString(shell, "${1}${2} -json${3}"), insertAfter(words, "test", "-json")), Added: "-json", GoJSON: true}, true
	case cargoTestAt.MatchString(shell):
		if strings.Contains(shell, "--no-fail-fast") {
			return Preset{Runner: "cargo test", Command: cmd, Added: "nothing (reads the test harness's lines)"}, true
		}
		return Preset{Runner: "cargo test", Command: rebuild(cargoTestAt.ReplaceAllString(shell, "${1}${2} --no-fail-fast${3}"), insertAfter(words, "test", "--no-fail-fast")), Added: "--no-fail-fast"}, true
	case pytestAt.MatchString(shell):
		file := filepath.Join(tmp, "pytest.xml")
		opts := "--junitxml=" + file
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, "PYTEST_ADDOPTS="); ok && v != "" {
				opts = v + " " + opts
			}
		}
		return Preset{Runner: "pytest", Command: cmd, Env: []string{"PYTEST_ADDOPTS=" + opts}, Report: file, Added: "PYTEST_ADDOPTS=--junitxml=" + file}, true
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

func atCommand(words string) *regexp.Regexp {
	return regexp.MustCompile(`((?:^|[;&|(\n]|\b(?:then|do|else|exec|time)\s)\s*(?:\w+=\S*\s+)*)(` + words + `)(\s|$)`)
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

// jsRunnerWords recognises a direct jest or vitest invocation.
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

// packageScript is the body of the script name in dir's package.json.
func packageScript(dir, name string) string {
	b, err := safefile.Read(filepath.Join(dir, "package.json"), safefile.ConfigLimit)
	if err != nil {
		return ""
	}
	var doc struct{ Scripts map[string]string }
	if json.Unmarshal(b, &doc) != nil {
		return ""
	}
	return doc.Scripts[name]
}

// buildTool recognises a Maven or Gradle invocation that runs tests, and
// the folder of the reports it writes.
func buildTool(words []string, dir string) (runner, report string) {
	words = withoutAssignments(words)
	if len(words) < 2 {
		return "", ""
	}
	has := func(goals ...string) bool {
		return slices.ContainsFunc(words[1:], func(w string) bool { return slices.Contains(goals, w) })
	}
	switch filepath.Base(words[0]) {
	case "mvn", "mvnw":
		if has("test", "verify", "install", "package", "deploy") {
			return "maven", filepath.Join(dir, "target", "surefire-reports")
		}
	case "gradle", "gradlew":
		if has("test", "check", "build") {
			return "gradle", filepath.Join(dir, "build", "test-results", "test")
		}
	}
	return "", ""
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

var shellSafe = regexp.MustCompile(`^[\w@%+=:,./-]+$`)

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
