package verify

import (
	"path/filepath"
	"slices"
	"strings"
)

// mocha: one mocha invocation (or npm test / npm run X / yarn X / pnpm X
// whose package.json script is one) gets its xunit reporter, written to
// a file: JUnit XML, read by the JUnit reader.
var mocha = Runner{
	Name:     "mocha",
	Commands: []string{"a command that is one `mocha` invocation (`npx mocha`, `node_modules/.bin/mocha`), or `npm test`, `npm run X`, `yarn X`, `pnpm X` whose package.json script is one"},
	Files:    None("mocha is recognised by its command (its .mocharc files are guarded as configuration)"),
	Report: []string{
		"`--reporter xunit --reporter-option output=FILE` appended (after `--` for npm and pnpm): JUnit XML, each `<testcase>` named `DESCRIBE/TITLE`, a pending test as `<skipped>`",
	},
	Env: None("mocha reads its reporter from the command line or .mocharc: name mocha in the verification command"),
	Config: []ConfigFile{
		{".mocharc.*", []string{"whole file (spec, grep, fgrep, invert, ignore, require, file, forbid-only)"}},
		{"package.json", []string{"mocha", "scripts.test and the scripts it runs"}},
	},
	Markers:   jsMarkers,
	Detect:    []string{`typeof\s+(describe|it)\s*[!=]==?\s*["']function["']`, `process\.argv\.some\(.*mocha`, `require\.main\.filename.*mocha`},
	NoTests:   []string{`Error: No test files found`, `\b0 passing\b`},
	TestFiles: []string{"*.spec.js", "*.test.js", "*.spec.mjs", "*.test.mjs", "*.spec.cjs", "*.test.cjs"},
	TestStart: jsTestStart,

	invoked: func(c Call) bool { r, _ := jsRunner(c.Words, c.Dir); return r == "mocha" },
	preset: func(c Call) (Preset, bool) {
		_, sep := jsRunner(c.Words, c.Dir)
		if slices.ContainsFunc(c.Words, func(w string) bool { return w == "-R" || strings.HasPrefix(w, "--reporter") }) {
			return Preset{}, false // its own reporter: name the report in test_report
		}
		file := filepath.Join(c.Tmp, "mocha.xml")
		add := []string{"--reporter", "xunit", "--reporter-option", "output=" + file}
		if sep != "" && !slices.Contains(c.Words, sep) {
			add = append([]string{sep}, add...)
		}
		quoted := make([]string, len(add))
		for i, a := range add {
			quoted[i] = shellQuote(a)
		}
		return Preset{Runner: "mocha", Command: c.rebuild(strings.TrimSpace(c.Shell)+" "+strings.Join(quoted, " "), append(slices.Clone(c.Words), add...)),
			Report: file, Added: strings.Join(add, " ")}, true
	},
}
