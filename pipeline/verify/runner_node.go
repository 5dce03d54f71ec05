package verify

import (
	"path/filepath"
	"slices"
	"strings"
)

// node --test, Node's built-in runner: its JUnit reporter is added to a
// file (beside the spec reporter on stdout), right after `node`, where
// Node reads its own options.
var nodeTest = Runner{
	Name:     "node --test",
	Commands: []string{"`node --test` (with Node's options before or after `--test`, and file patterns), at a command position"},
	Files:    None("node --test needs no file of its own: the command names it"),
	Report: []string{
		"`--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=FILE` inserted after `node`: its JUnit XML, each `<testcase>` named `test/NAME`, a skip and a todo as `<skipped>`",
	},
	Env: None("Node reads its reporters from the command line (NODE_OPTIONS does not take them): name node --test in the verification command"),
	Config: []ConfigFile{
		{"package.json", []string{"scripts.test and the scripts it runs (--test-name-pattern, --test-skip-pattern, --test-only, the file patterns)"}},
	},
	Markers: Markers{
		Skip:       []string{`\b(it|test|describe|suite)\.skip\b`, `\{[^}]*\bskip\s*:\s*(true|["'` + "`" + `])`, `\bt\.skip\(`},
		ExpectFail: None("node:test has no expected-failure marker"),
		Focus:      []string{`\b(it|test|describe|suite)\.only\b`, `\{[^}]*\bonly\s*:\s*true`},
		Invert:     None("node:test has no inverted test"),
		Todo:       []string{`\b(it|test|describe|suite)\.todo\b`, `\{[^}]*\btodo\s*:\s*(true|["'` + "`" + `])`, `\bt\.todo\(`},
	},
	Detect:    []string{`NODE_TEST_CONTEXT`, `process\.(exec)?[aA]rgv\.includes\(\s*["']--test["']`},
	NoTests:   []string{`<!-- tests 0 -->`, `ℹ tests 0`, `# tests 0`},
	TestFiles: []string{"*.test.js", "*.test.mjs", "*.test.cjs", "*-test.js", "*_test.js", "*-test.mjs", "*_test.mjs", "test-*.js", "test.js", "test.mjs"},
	TestStart: jsTestStart,

	invoked: func(c Call) bool { _, ok := nodeTestIndex(c); return ok },
	preset: func(c Call) (Preset, bool) {
		i, ok := nodeTestIndex(c)
		if !ok || strings.Contains(c.Shell, "--test-reporter") {
			return Preset{}, false // its own reporters: name the report in test_report
		}
		file := filepath.Join(c.Tmp, "node-test.xml")
		add := []string{"--test-reporter=spec", "--test-reporter-destination=stdout", "--test-reporter=junit", "--test-reporter-destination=" + file}
		var words []string
		if c.Words != nil {
			words = slices.Insert(slices.Clone(c.Words), slices.Index(c.Words, "node")+1, add...)
		}
		quoted := make([]string, len(add))
		for k, a := range add {
			quoted[k] = shellQuote(a)
		}
		shell := c.Shell[:i] + " " + strings.Join(quoted, " ") + c.Shell[i:]
		return Preset{Runner: "node --test", Command: c.rebuild(shell, words), Report: file, Added: strings.Join(add, " ")}, true
	},
}

// nodeTestAt finds node --test at a command position.
var nodeTestAt = atCommand(`node(?:\s+-[-\w]+(?:=\S+)?)*\s+--test`)

// nodeTestIndex is where, in c.Shell, the word node of a node --test
// invocation ends (its options go there).
func nodeTestIndex(c Call) (int, bool) {
	m := nodeTestAt.FindStringSubmatchIndex(c.Shell)
	if m == nil || c.Words != nil && !slices.Contains(c.Words, "node") {
		return 0, false
	}
	return m[4] + len("node"), true
}
