package verify

import (
	"path/filepath"
	"strings"
)

// pytest: recognised anywhere in a command; its JUnit XML report is asked
// for through PYTEST_ADDOPTS (a file in ralph-ci's own folder), and
// behind a script its -rA summary lines, one per test, are read.
var pytest = Runner{
	Name:     "pytest",
	Commands: []string{"`pytest`, `py.test`, `python -m pytest`, `uv`/`poetry`/`pipenv`/`hatch`/`pdm run pytest`, anywhere in the command"},
	Files:    []string{"pytest.ini", "conftest.py", "tests/conftest.py", "`[tool.pytest*]` in pyproject.toml", "`[tool:pytest]` in setup.cfg", "`[pytest]` in tox.ini"},
	Report: []string{
		"`PYTEST_ADDOPTS=--junitxml=FILE` (FILE outside the repository)",
		"behind a script: collection step `pytest --collect-only -q`, result lines `NODEID PASSED` of `-v` or `PASSED NODEID` of `-rA`",
	},
	Env: []string{"`PYTEST_ADDOPTS=-rA` (appended to the inherited value)"},
	Config: []ConfigFile{
		{"pytest.ini", []string{"whole file"}},
		{"pyproject.toml", []string{"[tool.pytest.*]", "[tool.coverage.*]"}},
		{"setup.cfg", []string{"[tool:pytest]", "[coverage:*]"}},
		{"tox.ini", []string{"[pytest]", "[testenv*]", "[coverage:*]"}},
		{"conftest.py", []string{"pytest_* hooks", "autouse fixtures", "module-level statements"}},
		{".coveragerc", []string{"whole file"}},
	},
	Markers: Markers{
		Skip:       []string{`@pytest\.mark\.skip(if)?\b`, `\bpytestmark\s*=.*\bpytest\.mark\.skip(if)?\b`, `\bpytest\.skip\(`, `@unittest\.skip`, `\bpytest\.importorskip\(`},
		ExpectFail: []string{`@pytest\.mark\.xfail\b`, `\bpytestmark\s*=.*\bpytest\.mark\.xfail\b`, `\bpytest\.xfail\(`},
		Focus:      None("pytest selects tests from the command line or the configuration, which the guard holds"),
		Invert:     None("pytest has no marker that passes a failing test other than xfail"),
		Todo:       None("pytest has no todo marker; a skip stands for it"),
	},
	Detect:    []string{`PYTEST_CURRENT_TEST`, `PYTEST_VERSION`, `["']pytest["']\s+in\s+sys\.modules`, `sys\.modules\.get\(\s*["']pytest["']`},
	NoTests:   []string{`no tests ran`, `collected 0 items`},
	TestFiles: []string{"test_*.py", "*_test.py", "conftest.py"},
	TestStart: []string{`^\s*(async\s+)?def\s+test`},

	invoked: func(c Call) bool { return pytestAt.MatchString(c.Shell) },
	preset: func(c Call) (Preset, bool) {
		file := filepath.Join(c.Tmp, "pytest.xml")
		return Preset{Runner: "pytest", Command: c.cmd, Env: []string{addTo(c.Environ, "PYTEST_ADDOPTS", "--junitxml="+file)}, Report: file, Added: "PYTEST_ADDOPTS=--junitxml=" + file}, true
	},
	inProject: func(p Project) bool {
		return p.Exists("pytest.ini") || p.Exists("conftest.py") || p.Exists("tests/conftest.py") ||
			strings.Contains(p.Read("pyproject.toml"), "[tool.pytest") || strings.Contains(p.Read("setup.cfg"), "[tool:pytest]") || strings.Contains(p.Read("tox.ini"), "[pytest]")
	},
	collect: func(Project) []string { return []string{"pytest", "--collect-only", "-q", "-p", "no:cacheprovider"} },
	lines:   func(list bool, _, _ string) lineReader { return &pytestLines{list: list} },
	env:     func(environ []string) []string { return []string{addTo(environ, "PYTEST_ADDOPTS", "-rA")} },
}
