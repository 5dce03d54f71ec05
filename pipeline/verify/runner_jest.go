package verify

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// jest: one jest invocation (or npm test / npm run X / yarn X / pnpm X
// whose package.json script is one) gets --json --outputFile=FILE;
// behind a script, jest --listTests lists the test files and the PASS or
// FAIL line of each is read.
var jest = Runner{
	Name:     "jest",
	Commands: []string{"a command that is one `jest` invocation (`npx jest`, `yarn jest`), or `npm test`, `npm run X`, `yarn X`, `pnpm X` whose package.json script is one"},
	Files:    []string{"jest in package.json (its key, a dependency, a script)", "jest.config.*"},
	Report: []string{
		"`--json --outputFile=FILE` appended (after `--` for npm and pnpm)",
		"behind a script: collection step `jest --listTests`, the `PASS FILE` / `FAIL FILE` line of each test file",
	},
	Env: None("jest reads no reporter from the environment; it prints a PASS or FAIL line per test file anyway"),
	Config: []ConfigFile{
		{"jest.config.*", []string{"whole file", "the setup files it names"}},
		{"package.json", []string{"jest", "scripts.test and the scripts it runs", "the setup files its jest key names"}},
	},
	Markers: jsMarkers,
	Detect:  []string{`JEST_WORKER_ID`, `process\.env\.JEST\b`, `typeof\s+jest\s*[!=]==?`},
	NoTests: []string{`No tests found`},
	TestFiles: []string{"*.test.js", "*.test.jsx", "*.test.ts", "*.test.tsx", "*.test.mjs", "*.test.cjs",
		"*.spec.js", "*.spec.jsx", "*.spec.ts", "*.spec.tsx", "*.spec.mjs", "*.spec.cjs"},
	TestStart: jsTestStart,

	invoked: func(c Call) bool { r, _ := jsRunner(c.Words, c.Dir); return r == "jest" },
	preset:  jsPreset,
	inProject: func(p Project) bool {
		return jestConfig.MatchString(p.Read("package.json")) || slices.ContainsFunc([]string{"js", "ts", "mjs", "cjs", "json"}, func(ext string) bool { return p.Exists("jest.config." + ext) })
	},
	collect: func(p Project) []string {
		if p.Exists("node_modules/.bin/jest") {
			return []string{filepath.Join(p.Dir, "node_modules", ".bin", "jest"), "--listTests"}
		}
		return []string{"jest", "--listTests"}
	},
	lines: func(list bool, root, prefix string) lineReader {
		return &jestLines{list: list, root: root, prefix: prefix}
	},
}

// jsTestStart matches the call that declares a test in jest, vitest and
// mocha (it, test, their .skip/.only/.each forms).
var jsTestStart = []string{`^\s*(it|test|fit|xit|xtest|bench)\b(\.\w+)*(\([^)]*\))?\s*\(`}

// jsMarkers are the markers of jest, vitest and mocha's test API.
var jsMarkers = Markers{
	Skip:       []string{`\b(it|test|describe|suite|bench)\.skip(If)?\b`, `\bx(it|test|describe)\s*\(`, `\bthis\.skip\(\)`, `\b(ctx|context|t)\.skip\(`},
	ExpectFail: None("jest and vitest have no expected-failure marker other than .fails, an inversion"),
	Focus:      []string{`\b(it|test|describe|suite)\.only\b`, `\bf(it|test|describe)\s*\(`},
	Invert:     []string{`\b(it|test)\.fails\b`, `\btest\.failing\b`, `\bit\.failing\b`},
	Todo:       []string{`\b(it|test|describe)\.todo\b`},
}

// jestConfig finds jest in a package.json: its jest key or a dependency
// named jest ("jest": …), or a script that runs it ("jest --ci", "tsc &&
// jest").
var jestConfig = lazyregexp.New(`"jest"\s*:|"(?:[^"]*[\s;&|])?jest(?:\s[^"]*)?"`)

// jsPreset appends jest's or vitest's report flags to one invocation.
func jsPreset(c Call) (Preset, bool) {
	runner, sep := jsRunner(c.Words, c.Dir)
	words := c.Words
	if slices.ContainsFunc(words, func(w string) bool { return w == "--json" || strings.HasPrefix(w, "--outputFile") }) {
		return Preset{}, false // the command writes its own report: name it in test_report
	}
	file := filepath.Join(c.Tmp, runner+".json")
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
	return Preset{Runner: runner, Command: c.rebuild(strings.TrimSpace(c.Shell)+" "+strings.Join(quoted, " "), append(slices.Clone(words), add...)),
		Report: file, Added: strings.Join(add, " ")}, true
}
