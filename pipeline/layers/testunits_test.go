package layers

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// The guard per test: a rotation may add tests (and imports, helpers)
// anywhere, existing files and groups included; a test of the stage's
// start must stay as it was; a new test must not be skipped, expected to
// fail, focused, inverted or a todo.
func TestGuardPerTest(t *testing.T) {
	const py = "import pytest\nfrom calc import add, div\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\nclass TestDiv:\n    def test_div(self):\n        assert div(6, 3) == 2\n"
	const js = "const { add } = require('../calc');\n\ndescribe('calc', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n"
	const gosrc = "package calc\n\nimport \"testing\"\n\nfunc TestDiv(t *testing.T) {\n\tif Div(6, 3) != 2 {\n\t\tt.Fatal(\"div\")\n\t}\n}\n"
	start := mapTree{"tests/test_calc.py": py, "test/calc.test.js": js, "calc_test.go": gosrc, "ralph.yaml": "x: 1\n"}
	crit := schema.Criteria{VerificationMethod: "external", VerificationConfig: schema.VerificationConfig{Command: &schema.Command{Shell: "pytest"}}}
	for _, tc := range []struct {
		name      string
		file, src string
		tampered  string // what the rejection names ("" none)
		marked    string // a new test's marker ("" none)
		allow     bool
	}{
		{"a new test in an existing file", "tests/test_calc.py", strings.Replace(py, "from calc import add, div", "from calc import add, div, mul", 1) + "\n\ndef test_mul():\n    assert mul(2, 3) == 6\n", "", "", false},
		{"a new method in an existing class", "tests/test_calc.py", py + "\n    def test_div_big(self):\n        assert div(600, 3) == 200\n", "", "", false},
		{"a new it in an existing describe", "test/calc.test.js", strings.Replace(js, "  });\n});", "  });\n\n  it('adds more', () => {\n    expect(add(2, 2)).toBe(4);\n  });\n});", 1), "", "", false},
		{"a new Go test and import", "calc_test.go", strings.Replace(gosrc, "import \"testing\"", "import (\n\t\"strings\"\n\t\"testing\"\n)", 1) + "\nfunc TestUpper(t *testing.T) {\n\tif strings.ToUpper(\"a\") != \"A\" {\n\t\tt.Fatal()\n\t}\n}\n", "", "", false},
		{"an existing assertion changed", "tests/test_calc.py", strings.Replace(py, "div(6, 3) == 2", "div(6, 3) >= 0", 1), "tests/test_calc.py (tests changed or removed: test_div)", "", false},
		{"an existing test skipped", "tests/test_calc.py", strings.Replace(py, "def test_add", "@pytest.mark.skip\ndef test_add", 1), "tests/test_calc.py (tests changed or removed: test_add)", "", false},
		{"an existing test deleted", "calc_test.go", "package calc\n", "calc_test.go (tests changed or removed: TestDiv, go: \"testing\")", "", false},
		{"an imported name swapped", "tests/test_calc.py", strings.Replace(py, "from calc import add, div", "from calc import add\nfrom fake import div", 1), "tests/test_calc.py (tests changed or removed: calc: div)", "", false},
		{"an it made .only", "test/calc.test.js", strings.Replace(js, "it('adds'", "it.only('adds'", 1), "test/calc.test.js (tests changed or removed: adds)", "", false},
		{"a new skipped test", "tests/test_calc.py", py + "\n\n@pytest.mark.skip(reason=\"later\")\ndef test_mul():\n    assert mul(2, 3) == 6\n", "", "tests/test_calc.py:14", false},
		{"a new xfail test", "tests/test_calc.py", py + "\n\n@pytest.mark.xfail\ndef test_mul():\n    assert mul(2, 3) == 6\n", "", "tests/test_calc.py:14", false},
		{"a new .fails test", "test/calc.test.js", js + "\ntest.fails('subtracts', () => {\n  expect(1).toBe(2);\n});\n", "", "test/calc.test.js:9", false},
		{"a new todo", "test/calc.test.js", js + "\ntest.todo('divides');\n", "", "test/calc.test.js:9", false},
		{"a new Go test that skips", "calc_test.go", gosrc + "\nfunc TestBig(t *testing.T) {\n\tt.Skip(\"later\")\n}\n", "", "calc_test.go:12", false},
		{"a short-mode skip is the report's business", "calc_test.go", gosrc + "\nfunc TestBig(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip(\"slow\")\n\t}\n}\n", "", "", false},
		{"a skipif is the report's business", "tests/test_calc.py", py + "\n\n@pytest.mark.skipif(sys.platform == \"win32\", reason=\"posix\")\ndef test_mul():\n    assert mul(2, 3) == 6\n", "", "", false},
		{"tests may change: an assertion changed", "tests/test_calc.py", strings.Replace(py, "div(6, 3) == 2", "div(6, 3) >= 0", 1), "", "", true},
		{"tests may change: a new skipped test still does not pass", "tests/test_calc.py", py + "\n\n@pytest.mark.skip\ndef test_mul():\n    pass\n", "", "tests/test_calc.py:14", true},
		{"a new test file with a skipped test", "tests/test_more.py", "import pytest\n\n@pytest.mark.skip\ndef test_more():\n    assert False\n", "", "tests/test_more.py:3", false},
		{"a new describe.skip around a new test", "test/calc.test.js", js + "\ndescribe.skip('more', () => {\n  it('multiplies', () => {\n    expect(1).toBe(1);\n  });\n});\n", "", "test/calc.test.js:9", false},
		{"a new test module skipped whole", "tests/test_more.py", "import pytest\n\npytestmark = pytest.mark.skip\n\n\ndef test_more():\n    assert False\n", "", "tests/test_more.py:3", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := crit
			c.AllowTestChanges = tc.allow
			scope := GuardScope{Stage: "coder", Config: "ralph.yaml", Criteria: c}
			before := GuardBefore(start, scope, Saved{}, nil)
			after := maps.Clone(start)
			after[tc.file] = tc.src
			now, stops := GuardAfter(after, scope, before.Held)
			got := strings.Join(Tampered(before.Held, now), "; ")
			if got != tc.tampered {
				t.Errorf("tampered %q, want %q", got, tc.tampered)
			}
			var marked []string
			for f, why := range stops {
				if strings.Contains(why, "a new test") {
					marked = append(marked, f)
				}
			}
			if want := slices.DeleteFunc([]string{tc.marked}, func(s string) bool { return s == "" }); !slices.Equal(marked, want) {
				t.Errorf("marked new tests %q (%v), want %q", marked, stops, want)
			}
		})
	}
}
