package verify

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// vitest: one vitest invocation (vitest, vitest run, or a package.json
// script that is one) gets --reporter=json --outputFile.json=FILE beside
// its default reporter; its JSON report reads like jest's, and a test
// marked .fails, which the report calls passed, is caught by its marker.
var vitest = Runner{
	Name:     "vitest",
	Commands: []string{"a command that is one `vitest` or `vitest run` invocation (`npx vitest run`), or `npm test`, `npm run X`, `yarn X`, `pnpm X` whose package.json script is one"},
	Files:    []string{"vitest in package.json (a dependency, a script)", "vitest.config.*"},
	Report: []string{
		"`--reporter=default --reporter=json --outputFile.json=FILE` appended (after `--` for npm and pnpm)",
		"behind a script: collection step `vitest list --filesOnly`, the `✓ FILE` / `❯ FILE` / `↓ FILE` line of each test file",
	},
	Env: None("vitest reads no reporter from the environment: run it as the verification command, or as the package.json script the command runs"),
	Config: []ConfigFile{
		{"vitest.config.*", []string{"whole file", "the setup files it names (setupFiles, globalSetup)"}},
		{"vitest.workspace.*", []string{"whole file"}},
		{"vite.config.*", []string{"test", "resolve.alias"}},
		{"package.json", []string{"vitest", "scripts.test and the scripts it runs"}},
	},
	Markers:   jsMarkers,
	Detect:    []string{`process\.env\.VITEST\b`, `VITEST_WORKER_ID`, `VITEST_POOL_ID`},
	NoTests:   []string{`No test files found`, `No test suite found`},
	TestFiles: jest.TestFiles,
	TestStart: jsTestStart,

	invoked: func(c Call) bool { r, _ := jsRunner(c.Words, c.Dir); return r == "vitest" },
	preset:  jsPreset,
	inProject: func(p Project) bool {
		return vitestConfig.MatchString(p.Read("package.json")) || slices.ContainsFunc([]string{"js", "ts", "mjs", "mts", "cjs", "cts"}, func(ext string) bool { return p.Exists("vitest.config." + ext) })
	},
	collect: func(p Project) []string {
		if p.Exists("node_modules/.bin/vitest") {
			return []string{filepath.Join(p.Dir, "node_modules", ".bin", "vitest"), "list", "--filesOnly"}
		}
		return []string{"vitest", "list", "--filesOnly"}
	},
	lines: func(list bool, _, prefix string) lineReader { return &vitestLines{list: list, prefix: prefix} },
}

// vitestConfig finds vitest in a package.json: a dependency or a script
// that runs it.
var vitestConfig = lazyregexp.New(`"vitest"\s*:|"(?:[^"]*[\s;&|])?vitest(?:\s[^"]*)?"`)

var (
	vitestFile   = lazyregexp.New(`^\s*(✓|❯|×|↓)\s+(\S+\.\S+)\s+\(\d+ tests?`)
	vitestListed = lazyregexp.New(`^(\S+\.(?:test|spec)\.[cm]?[jt]sx?)$`)
)

// vitestLines reads the line vitest's default reporter prints for each
// test file ("✓ test/calc.test.js (3 tests)", ❯ or × when one failed, ↓
// when all were skipped), or, with list, vitest list --filesOnly's paths;
// files are named relative to the repository (prefix is the command's
// folder).
type vitestLines struct {
	lineFeed
	list    bool
	prefix  string
	verdict map[string]string
}

func (v *vitestLines) Write(b []byte) (int, error) { return v.feed(b, v.line) }

func (v *vitestLines) line(b []byte, long bool) {
	s := strings.TrimRight(string(b), " \r")
	if long {
		return
	}
	name := func(f string) string { return filepath.ToSlash(filepath.Join(v.prefix, f)) }
	if v.list {
		if m := vitestListed.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
			v.verdict = result(v.verdict, name(m[1]), "pass")
		}
		return
	}
	if m := vitestFile.FindStringSubmatch(s); m != nil {
		word := "fail" // ❯, ×
		switch m[1] {
		case "✓":
			word = "pass"
		case "↓":
			word = "skip"
		}
		v.verdict = result(v.verdict, name(m[2]), word)
	}
}

func (v *vitestLines) run() TestRun {
	v.lines.End(v.line)
	return runOf(len(v.verdict) > 0, v.verdict, "pass", "skip")
}
