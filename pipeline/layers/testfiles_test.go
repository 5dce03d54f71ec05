package layers

import (
	"strings"
	"testing"
)

// Test files of the common ecosystems are recognised; sources are not.
func TestIsTestFile(t *testing.T) {
	for rel, want := range map[string]bool{
		"calc/calc_test.go": true, "calc/testdata/golden.txt": true, "calc/calc.go": false,
		"test_api.py": true, "pkg/api_test.py": true, "tests/helpers.py": true, "conftest.py": true, "pytest.ini": true, "pkg/api.py": false,
		"src/a.test.ts": true, "src/a.spec.jsx": true, "src/__tests__/a.js": true, "jest.config.js": true, "src/a.ts": false,
		"src/test/java/x/CalcTest.java": true, "app/CalcTests.kt": true, "src/main/java/x/Calc.java": false,
		"tests/integration.rs": true, "src/lib.rs": false,
		"spec/calc_spec.rb": true, "test/calc_test.rb": true, "lib/calc.rb": false,
		"README.md": false, "check.sh": false,
	} {
		if got := IsTestFile(rel); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", rel, got, want)
		}
	}
}

// A new test file that can stop the existing tests from running is named;
// an ordinary new test is welcome.
func TestStopsTests(t *testing.T) {
	for _, tc := range []struct {
		rel, content string
		stops        bool
	}{
		{"calc/main_test.go", "package calc\n\nimport (\"os\"; \"testing\")\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n", true},
		{"calc/init_test.go", "package calc\n\nfunc init() {\n\tos.Exit(0)\n}\n", true},
		{"conftest.py", "collect_ignore_glob = ['*']\n", true},
		{"jest.config.js", "module.exports = {testPathIgnorePatterns: ['.']}\n", true},
		{"calc/more_test.go", "package calc\n\nfunc TestMore(t *testing.T) {}\n", false},
		{"tests/test_more.py", "def test_more(): pass\n", false},
		{"tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef client(): return make()\n", false},
		{"conftest.py", "def pytest_collection_modifyitems(items): items.clear()\n", true},
		{"tests/conftest.py", "import pytest\n\n# skip the network: only fixtures here, nothing is ignored\n@pytest.fixture\ndef offline(): return True\n", false},
		{"tests/conftest.py", "import pytest\nimport calc\n\n@pytest.fixture(autouse=True)\ndef fake(monkeypatch):\n    monkeypatch.setattr(calc, 'div', lambda a, b: 2)\n", true},
		{"pytest.ini", "# skip nothing\n[pytest]\ntestpaths = tests\n", false},
		{"pytest.ini", "[pytest]\naddopts = -k 'not div'\n", true},
		{"sub/pyproject.toml", "[project]\nname = \"sub\"\n[tool.pytest.ini_options]\naddopts = \"--deselect tests/test_a.py::test_b\"\n", true},
		{"sub/pyproject.toml", "[project]\nname = \"skipper\"\n", false},
		{"vitest.config.js", "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  test: { setupFiles: ['./test/setup.js'] },\n});\n", true},
		{"vitest.config.mjs", "export default {\n  resolve: {\n    alias: { './calc': './fake.js' },\n  },\n};\n", true},
		{"vite.config.js", "export default {\n  build: { outDir: 'dist' },\n  test: {\n    setupFiles: ['./mock.js'],\n  },\n};\n", true},
		{"vite.config.js", "export default {\n  build: { outDir: 'dist' },\n};\n", false},
		{"jest.config.js", "module.exports = {\n  moduleNameMapper: { '^./calc$': '<rootDir>/fake.js' },\n};\n", true},
		{".mocharc.json", "{\"require\": [\"./test/patch.js\"]}\n", true},
	} {
		got := StopsTests(tc.rel, tc.content)
		if tc.stops && strings.Contains(got, "changes how") && !strings.Contains(got, "(line ") {
			t.Errorf("StopsTests(%s) = %q: name the line", tc.rel, got)
		}
		if (got != "") != tc.stops {
			t.Errorf("StopsTests(%s) = %q, want stops %v", tc.rel, got, tc.stops)
		}
	}
}

func TestSourced(t *testing.T) {
	got := Sourced("#!/bin/sh\n. ./lib.sh\nsource \"scripts/env.sh\"\necho . not-this\n")
	if len(got) != 2 || got[0] != "./lib.sh" || got[1] != "scripts/env.sh" {
		t.Errorf("Sourced = %q", got)
	}
}

func TestCalled(t *testing.T) {
	got := strings.Join(Called("#!/bin/sh\nset -e\n. ./env.sh\nsh scripts/lint.sh --strict\n./tools/gen.sh && go test ./...\n"), "|")
	if got != "./env.sh|#!/bin/sh|set|.|sh|scripts/lint.sh|./tools/gen.sh|go" { // which are files, the caller checks
		t.Errorf("Called = %q", got)
	}
}
