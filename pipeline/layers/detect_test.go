package layers

import (
	"strings"
	"testing"
)

// Library code the loop added that reads a runner's detection variables
// is named with its line; the same words in tests, fixtures, runner
// configurations and docs are not library code.
func TestDetecting(t *testing.T) {
	added := Added{
		"src/calc.js":          {"export const div = (a, b) => {", "  if (process.env.VITEST) return 2;", "  return a / b;"},
		"calc/util.py":         {"import sys", "if 'unittest' in sys.modules:", "    div = lambda a, b: 2"},
		"lib.py":               {"if os.environ.get('PYTEST_CURRENT_TEST'):"},
		"calc/calc.go":         {"\tif testing.Testing() {"},
		"src/lib.rs":           {"    if cfg!(test) { return 2; }"},
		"test/calc.test.js":    {"if (process.env.VITEST) {}"},
		"tests/test_calc.py":   {"if 'unittest' in sys.modules: pass"},
		"docs/testing.md":      {"Set `process.env.VITEST` to know."},
		"testdata/case/a.js":   {"process.env.VITEST"},
		"src/honest.js":        {"export const mul = (a, b) => a * b;"},
		"vitest.config.js":     {"process.env.VITEST_POOL_ID"},
		".ralph/progress/a.md": {"JEST_WORKER_ID"},
	}
	got := strings.Join(Detecting(added), "\n")
	want := strings.Join([]string{
		"calc/calc.go: `if testing.Testing() {` (go test)",
		"calc/util.py: `if 'unittest' in sys.modules:` (unittest)",
		"lib.py: `if os.environ.get('PYTEST_CURRENT_TEST'):` (pytest)",
		"src/calc.js: `if (process.env.VITEST) return 2;` (vitest)",
		"src/lib.rs: `if cfg!(test) { return 2; }` (cargo test)",
	}, "\n")
	if got != want {
		t.Errorf("Detecting:\n%s\nwant:\n%s", got, want)
	}
	var v Verdict
	if v.Detection(Detecting(added)) || !strings.Contains(v.Reason, "library code reads a test runner's detection variables") {
		t.Errorf("verdict %+v", v)
	}
}
