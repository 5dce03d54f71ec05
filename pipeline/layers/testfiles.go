package layers

import (
	"fmt"
	"path"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Tests are verifiers. The test files that exist when a stage starts are
// guarded like verification scripts ([Verdict.Guard]): a rotation that
// deletes, renames, skips, disables or edits one has its claim rejected,
// naming the file. New test files are welcome (writing tests is often the
// work) unless they can stop the existing ones from running
// ([StopsTests]). A stage whose work is changing tests says
// allow_test_changes: true in its criteria.

// testRunnerFiles configure how a suite runs: a new or edited one can skip
// or disable every existing test.
var testRunnerFiles = map[string]bool{
	"conftest.py": true, "pytest.ini": true, "spec_helper.rb": true, "rails_helper.rb": true,
	"test_helper.rb": true, ".rspec": true, "setupTests.js": true, "setupTests.ts": true,
}

// testRunnerPrefixes are configuration files of JS test runners.
var testRunnerPrefixes = []string{"jest.config.", "vitest.config.", ".mocharc", "karma.conf.", "playwright.config.", "cypress.config."}

// testDirs hold tests (and their fixtures) by convention.
var testDirs = map[string]bool{"testdata": true, "__tests__": true, "__snapshots__": true, "__fixtures__": true}

var jsTest = lazyregexp.New(`\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)

// IsTestFile tells whether a repo-relative, slash-separated path is a test,
// a test's fixture, or a file that configures how tests run, in the common
// ecosystems: Go (*_test.go, testdata/), Python (test_*.py, *_test.py,
// tests/**.py, conftest.py, pytest.ini), JS/TS (*.test.*, *.spec.*,
// __tests__/, test/ and tests/ at the root, jest/vitest/mocha configs), Java/Kotlin (src/test/**,
// *Test.java, *Tests.kt, *IT.java), Rust (tests/**.rs, benches excluded),
// Ruby (*_spec.rb, *_test.rb, spec/**.rb, test/**.rb, spec_helper.rb).
func IsTestFile(rel string) bool {
	base := path.Base(rel)
	dirs := strings.Split(path.Dir(rel), "/")
	inDir := func(names ...string) bool {
		for _, d := range dirs {
			for _, n := range names {
				if d == n {
					return true
				}
			}
		}
		return false
	}
	for _, d := range dirs {
		if testDirs[d] {
			return true
		}
	}
	if testRunnerFiles[base] {
		return true
	}
	for _, p := range testRunnerPrefixes {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch ext {
	case ".go":
		return strings.HasSuffix(stem, "_test")
	case ".py":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || inDir("tests", "test")
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts":
		return jsTest.MatchString(base) || dirs[0] == "test" || dirs[0] == "tests" // helpers beside the tests
	case ".java", ".kt", ".kts", ".scala", ".groovy":
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "IT") ||
			strings.Contains(rel, "src/test/") || strings.HasPrefix(rel, "test/")
	case ".rs":
		return dirs[0] == "tests" || inDir("tests")
	case ".rb":
		return strings.HasSuffix(stem, "_spec") || strings.HasSuffix(stem, "_test") || dirs[0] == "spec" || dirs[0] == "test"
	}
	return false
}

var (
	// narrows are what a test runner's configuration uses to leave tests
	// out or skip them.
	narrows    = lazyregexp.New(`(?i)skip|ignore|exclude|deselect|testMatch|testRegex|roots|addopts|collection_modifyitems|only`)
	goTestMain = lazyregexp.New(`(?m)^func\s+TestMain\s*\(`)
	goExit     = lazyregexp.New(`(?m)^func\s+init\s*\(\s*\)[^\n]*\{(?s:.*?)os\.Exit\(`)
)

// StopsTests tells why a file the loop added can stop the existing tests
// from running, or "" when it cannot: a Go TestMain (it decides whether
// the package's tests run at all, and may exit 0 before them), an init
// that exits, a conftest.py with pytest hooks, autouse fixtures or
// module-level patching (one that only holds fixtures is welcome), or a
// test runner configuration (a pytest.ini, a jest or vitest config, the
// test keys of a new pyproject.toml or package.json, [View]) that skips,
// ignores or narrows what runs. Comments do not count.
func StopsTests(rel, content string) string {
	base := path.Base(rel)
	runner := testRunnerFiles[base] || isJSRunnerConfig(base) || base == ".coveragerc"
	for _, p := range testRunnerPrefixes {
		runner = runner || strings.HasPrefix(base, p)
	}
	switch {
	case strings.HasSuffix(base, "_test.go") && goTestMain.MatchString(content):
		return "a new TestMain decides whether the package's existing tests run"
	case strings.HasSuffix(base, "_test.go") && goExit.MatchString(content):
		return "a new init exits before the package's tests run"
	case base == "conftest.py":
		if conftestHooks.MatchString(string(conftestView([]byte(content)))) {
			return "a new conftest.py with pytest hooks, autouse fixtures or module-level patching decides how the existing tests run"
		}
		return ""
	case viewed[base]:
		view := View(rel+ViewSuffix, []byte(content))
		if narrows.Match(view) {
			return "a new test runner configuration skips or narrows the existing tests"
		}
		if isViteConfig(base) && len(view) > 0 {
			if line := changesAt(content); line > 0 {
				return fmt.Sprintf("a new test runner configuration changes how the existing tests run (line %d: %s)", line, changeKey(content, line))
			}
		}
	case runner && narrows.MatchString(stripComments(content)):
		return "a new test runner configuration skips or narrows the existing tests"
	case runner:
		if line := changesAt(content); line > 0 {
			return fmt.Sprintf("a new test runner configuration changes how the existing tests run (line %d: %s)", line, changeKey(content, line))
		}
	}
	return ""
}

// changes are the keys of a runner configuration that change what the
// tests load or run against: setup files and modules, aliases and module
// mappers, environments, transforms, plugins and the Python path (what
// is selected, the test inventory judges).
var changes = lazyregexp.New(`\b(setupFiles\w*|globalSetup|globalTeardown|setup|require|alias|moduleNameMapper|moduleDirectories|modulePaths|resolve|testEnvironment|environment|transform\w*|plugins|deps|server|mock\w*|restoreMocks|pythonpath|addopts|usefixtures)\b`)

// changesAt is the number of the first line of a configuration (comments
// aside) that holds a key of [changes], 0 for none.
func changesAt(content string) int {
	for i, l := range strings.Split(content, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, ";") && changes.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

func changeKey(content string, line int) string {
	return changes.FindString(strings.Split(content, "\n")[line-1])
}

// isViteConfig tells vite's configuration, which holds vitest's under
// its test key.
func isViteConfig(base string) bool { return strings.HasPrefix(base, "vite.config.") }

// conftestHooks are what makes a conftest.py more than fixtures.
var conftestHooks = lazyregexp.New(`(?m)^(async\s+)?def\s+pytest_|autouse\s*=\s*True|sys\.modules|setattr\(|^[\w.]+\.\w+\s*=|^(collect_ignore|collect_ignore_glob|pytest_plugins|pytestmark)\b`)

// commentLine is a whole-line comment of a configuration file (#, ;, //).
var commentLine = lazyregexp.New(`(?m)^\s*(#|;|//).*$`)

func stripComments(s string) string { return commentLine.ReplaceAllString(s, "") }

// IsRunnerConfig tells a file that configures a test runner (whole, or
// by a view of its keys; a Go test file holds its package's TestMain and
// build constraints): a new one is judged by [StopsTests] whatever the
// stage may do to tests.
func IsRunnerConfig(rel string) bool {
	base := path.Base(rel)
	return base == "conftest.py" || base == "pytest.ini" || base == ".coveragerc" || isJSRunnerConfig(base) || viewed[base] || isGoTest(rel)
}

// IsFixture tells a file that holds test data: markers of unfinished work
// there are data, not work left undone.
func IsFixture(rel string) bool {
	for _, d := range strings.Split(path.Dir(rel), "/") {
		switch d {
		case "testdata", "fixtures", "__fixtures__", "__snapshots__", "golden", "snapshots":
			return true
		}
	}
	return false
}

// Called lists the files a shell script sources or runs as scripts (a
// command's first word, or the script an interpreter such as sh or python
// is given), as far as can be known without running it; which of them
// are files in the repository the caller checks.
func Called(script string) []string {
	return append(Sourced(script), scripts(schema.Command{Shell: script})...)
}

var sourceLine = lazyregexp.New(`(?m)^\s*(?:\.|source)\s+["']?([\w./-]+)["']?\s*$`)

// Sourced lists the files a shell script sources ("." or "source" with a
// literal path), as far as can be known without running it.
func Sourced(script string) []string {
	var out []string
	for _, m := range sourceLine.FindAllStringSubmatch(script, -1) {
		out = append(out, m[1])
	}
	return out
}
