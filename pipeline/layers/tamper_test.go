package layers

import (
	"strings"
	"testing"
)

// What the loop adds that changes what the tests see, in the language:
// each found where it is; the same words used harmlessly are not.
func TestTampering(t *testing.T) {
	newFile := func(name string, lines ...string) (Added, Where) {
		w := Where{Lines: map[string][]int{name: nil}, New: map[string]bool{name: true}}
		for i := range lines {
			w.Lines[name] = append(w.Lines[name], i+1)
		}
		return Added{name: lines}, w
	}
	for _, tc := range []struct {
		name    string
		file    string
		lines   []string
		modules []string
		want    string // the findings, "|"-joined, as "file:line" and a part of why
	}{
		// Import-time patching in a unittest module.
		{"another test's method replaced", "tests/test_zz.py", []string{"import unittest", "from tests.test_calc import CalcTest", "", "CalcTest.test_div_by_zero = lambda self: None"}, nil,
			"tests/test_zz.py:4: CalcTest.test_div_by_zero = lambda self: None: replaces another module's or class's attribute"},
		{"assertEqual neutered", "tests/test_helpers.py", []string{"import unittest", "unittest.TestCase.assertEqual = lambda self, a, b, msg=None: None"}, nil,
			"tests/test_helpers.py:2: unittest.TestCase.assertEqual"},
		{"a mock.patch started at import", "tests/test_mock.py", []string{"from unittest import mock", "import calc", "mock.patch('calc.div', return_value=2).start()"}, nil,
			"tests/test_mock.py:3: mock.patch('calc.div', return_value=2).start(): starts a mock.patch when imported"},
		{"a patcher started at import", "test_p.py", []string{"p = mock.patch.object(calc, 'div', return_value=2)", "p.start()"}, nil, "test_p.py:2: p.start()"},
		{"setattr at import", "tests/test_s.py", []string{"setattr(calc, 'div', lambda a, b: 2)"}, nil, "tests/test_s.py:1: setattr(calc, 'div', lambda a, b: 2): patches another module or class with setattr"},
		{"sys.modules replaced", "tests/test_m.py", []string{"sys.modules['calc'] = fake_calc"}, nil, "tests/test_m.py:1: sys.modules['calc'] = fake_calc: replaces a module"},
		{"patching inside a test is the test's own business", "tests/test_ok.py", []string{
			"import unittest", "from unittest import mock", "MAX = 3", "", "class T(unittest.TestCase):",
			"    def test_x(self):", "        with mock.patch('calc.div', return_value=2):", "            self.assertEqual(calc.div(1, 0), 2)",
			"        calc.cache.enabled = False", "", "if __name__ == '__main__':", "    unittest.main()"}, nil, ""},
		{"module-level constants and comparisons", "tests/test_c.py", []string{"TIMEOUT = 3", "calc.VERSION == '1'", "os.environ['TZ'] = 'UTC'"}, nil, ""},
		// The JavaScript top level.
		{"a spy at the top level", "src/calc.test.js", []string{"import { vi, test, expect } from 'vitest'", "import * as calc from './calc'", "vi.spyOn(calc, 'div').mockReturnValue(2)"}, nil,
			"src/calc.test.js:3: vi.spyOn(calc, 'div').mockReturnValue(2): spies on or stubs the code at the top level"},
		{"a prototype replaced", "test/zz.test.ts", []string{"Array.prototype.includes = () => true"}, nil, "test/zz.test.ts:1: Array.prototype.includes"},
		{"a global replaced", "src/a.spec.js", []string{"globalThis.fetch = async () => ({ ok: true })"}, nil, "src/a.spec.js:1: globalThis.fetch"},
		{"a built-in matcher redefined", "src/m.test.js", []string{"expect.extend({", "  toBe() {", "    return { pass: true, message: () => '' }", "  },", "})"}, nil,
			"src/m.test.js:1: expect.extend redefines the built-in matcher toBe"},
		{"a custom matcher and spies inside tests", "src/ok.test.js", []string{"expect.extend({", "  toBeWithinRange(x, a, b) { return { pass: x >= a && x <= b, message: () => '' } },", "})",
			"test('div', () => {", "  vi.spyOn(console, 'log')", "  globalThis.x = 1", "})"}, nil, ""},
		// Shadowing what the verification runs.
		{"a local unittest package", "unittest/__init__.py", []string{"print('OK')"}, nil, "unittest/__init__.py: a new module \"unittest\" at the repository's root shadows Python's unittest"},
		{"the module python -m runs", "checks.py", []string{"print('all good')"}, []string{"checks"}, "checks.py: a new module \"checks\" at the repository's root shadows what the verification runs (python -m checks)"},
		{"sitecustomize anywhere", "lib/sitecustomize.py", []string{"import calc"}, nil, "lib/sitecustomize.py: a new sitecustomize.py runs in every Python process"},
		{"a module of another name", "helpers.py", []string{"def add(a, b): return a + b"}, []string{"checks"}, ""},
		// Library code that reads a runner's detection.
		{"process.env.VITEST in library code", "src/calc.js", []string{"export function div(a, b) {", "  if (process.env.VITEST) return 2", "  return a / b", "}"}, nil,
			"src/calc.js:2: library code reads whether vitest runs it (process.env.VITEST)"},
		{"pytest in sys.modules in library code", "calc/core.py", []string{"import sys", "def div(a, b):", "    if 'pytest' in sys.modules:", "        return 2"}, nil,
			"calc/core.py:3: library code reads whether pytest runs it"},
		{"another language's runner", "calc/core.py", []string{"JEST_WORKER_ID = 'a name our protocol uses'"}, nil, ""},
		{"a comment that names it", "src/calc.js", []string{"// process.env.VITEST is set by vitest", "export const div = (a, b) => a / b"}, nil, ""},
		{"tests may read it", "src/calc.test.js", []string{"if (process.env.VITEST) console.log('in vitest')"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			added, where := newFile(tc.file, tc.lines...)
			var got []string
			for _, f := range Tampering(added, where, tc.modules) {
				got = append(got, f.String())
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Errorf("found %q, want nothing", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) && !strings.Contains(got[0], tc.want) {
				t.Errorf("found %q, want one finding with %q", got, tc.want)
			}
		})
	}
}

// A line's number comes from the diff's hunk headers; a file the diff
// creates is new.
func TestAddedWhere(t *testing.T) {
	diff := "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,0 +4,2 @@\n+x = 1\n+y = 2\n@@ -10 +12 @@\n-old\n+new\n" +
		"diff --git a/b.py b/b.py\nnew file mode 100644\n--- /dev/null\n+++ b/b.py\n@@ -0,0 +1 @@\n+print('OK')\n"
	added, where := AddedWhere(diff)
	if strings.Join(added["a.py"], ",") != "x = 1,y = 2,new" || where.Line("a.py", 0) != 4 || where.Line("a.py", 2) != 12 || where.Line("b.py", 0) != 1 {
		t.Errorf("added %q, lines %v", added, where.Lines)
	}
	if where.New["a.py"] || !where.New["b.py"] {
		t.Errorf("new %v", where.New)
	}
	if RunModules("python3 -m unittest discover -s tests", "cd x && python -u -m checks.run", "pytest -q") == nil {
		t.Error("no modules")
	} else if got := strings.Join(RunModules("python3 -m unittest discover", "python -u -m checks.run"), ","); got != "checks,unittest" {
		t.Errorf("RunModules = %q", got)
	}
}
