package layers

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The view of a configuration file changes with the keys that decide how
// tests run, and not with an honest edit elsewhere in the same file.
func TestViewKeepsTestKeysOnly(t *testing.T) {
	for _, tc := range []struct {
		item, before, honest, narrowed string
	}{
		{"pyproject.toml" + ViewSuffix,
			"[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
			"[project]\nname = \"calc\"\nversion = \"0.2.0\"\ndependencies = [\"attrs\"]\n\n[tool.pytest.ini_options]\ntestpaths = [ \"tests\" ]   # reformatted\n",
			"[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\naddopts = \"-k 'not div'\"\n"},
		{"pyproject.toml" + ViewSuffix,
			"[tool.coverage.run]\nbranch = true\n",
			"[tool.black]\nline-length = 100\n[tool.coverage.run]\nbranch = true\n",
			"[tool.coverage.run]\nbranch = true\nomit = [\"calc.py\"]\n"},
		{"setup.cfg" + ViewSuffix,
			"[metadata]\nname = calc\n\n[tool:pytest]\ntestpaths = tests\n",
			"[metadata]\nname = calc\nversion = 2\n\n[tool:pytest]\n# a comment\ntestpaths=tests\n",
			"[metadata]\nname = calc\n\n[tool:pytest]\ntestpaths = tests\naddopts = --deselect tests/test_calc.py::test_div\n"},
		{"tox.ini" + ViewSuffix,
			"[tox]\nenvlist = py311\n[testenv]\ncommands = pytest\n",
			"[tox]\nenvlist = py311,py312\n[testenv]\ncommands = pytest\n",
			"[tox]\nenvlist = py311\n[testenv]\ncommands = pytest -k add\n"},
		{"package.json" + ViewSuffix,
			`{"name":"calc","version":"1.0.0","scripts":{"test":"jest","lint":"eslint ."},"jest":{"testEnvironment":"node"}}`,
			`{"name":"calc","version":"1.1.0","scripts":{"lint":"eslint src","test":"jest"},"dependencies":{"left-pad":"1.3.0"},"jest":{"testEnvironment":"node"}}`,
			`{"name":"calc","version":"1.0.0","scripts":{"test":"jest","lint":"eslint ."},"jest":{"testEnvironment":"node","moduleNameMapper":{"^./calc$":"<rootDir>/fake.js"}}}`},
		{"package.json (test configuration: check)",
			`{"scripts":{"check":"npm run unit","unit":"jest","build":"tsc"}}`,
			`{"scripts":{"check":"npm run unit","unit":"jest","build":"tsc -p ."}}`,
			`{"scripts":{"check":"npm run unit","unit":"jest --passWithNoTests src/add","build":"tsc"}}`},
		{"Cargo.toml" + ViewSuffix,
			"[package]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[dependencies]\n",
			"[package]\nname = \"calc\"\nversion = \"0.2.0\"\n\n[dependencies]\nserde = \"1\"\n",
			"[package]\nname = \"calc\"\nversion = \"0.1.0\"\nautotests = false\n\n[dependencies]\n"},
		{"Cargo.toml" + ViewSuffix,
			"[package]\nname = \"calc\"\n\n[[test]]\nname = \"calc\"\n",
			"[package]\nname = \"calc\"\ndescription = \"adds\"\n\n[[test]]\nname = \"calc\"\n",
			"[package]\nname = \"calc\"\n\n[[test]]\nname = \"calc\"\nharness = false\n"},
		{"tests/conftest.py" + ViewSuffix,
			"import pytest\n\n@pytest.fixture\ndef nums():\n    return [1, 2]\n",
			"import pytest\n\n# a fixture that skips nothing\n@pytest.fixture\ndef nums():\n    return [1, 2, 3]\n\n\n@pytest.fixture\ndef zero():\n    return 0\n",
			"import pytest\n\n@pytest.fixture\ndef nums():\n    return [1, 2]\n\n\ndef pytest_collection_modifyitems(items):\n    items[:] = items[:1]\n"},
		{"tests/conftest.py" + ViewSuffix,
			"import pytest\n",
			"import pytest\n\n\ndef helper(x):\n    return x\n",
			"import pytest\nimport calc\n\n\n@pytest.fixture(\n    autouse=True)\ndef fake(monkeypatch):\n    monkeypatch.setattr(calc, 'div', lambda a, b: 2)\n"},
		{"pom.xml" + ViewSuffix,
			"<project><version>1</version><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId></plugin></plugins></build></project>",
			"<project><version>2</version><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId></plugin></plugins></build></project>",
			"<project><version>1</version><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><excludes><exclude>**/DivTest.java</exclude></excludes></configuration></plugin></plugins></build></project>"},
		{"build.gradle" + ViewSuffix,
			"version = '1'\ntest {\n    useJUnitPlatform()\n}\n",
			"version = '2'\ntest {\n    useJUnitPlatform()\n}\n",
			"version = '1'\ntest {\n    useJUnitPlatform()\n    exclude '**/DivTest.class'\n}\n"},
	} {
		before := View(tc.item, []byte(tc.before))
		if got := View(tc.item, []byte(tc.honest)); !bytes.Equal(got, before) {
			t.Errorf("%s: an honest edit changed the view:\n%s\n---\n%s", tc.item, before, got)
		}
		if got := View(tc.item, []byte(tc.narrowed)); bytes.Equal(got, before) {
			t.Errorf("%s: narrowing the tests left the view as it was:\n%s", tc.item, before)
		}
	}
}

// RunnerItems finds the configuration files in their ecosystems' places
// and names the scripts of the verification command; SetupFiles finds
// the files a jest config names.
func TestRunnerItems(t *testing.T) {
	files := []string{"pyproject.toml", "tests/conftest.py", "web/package.json", "web/jest.config.js", "node_modules/x/package.json", "Cargo.toml", "src/lib.rs", "pytest.ini"}
	got := RunnerItems(files, []string{"cd web && npm run check"})
	want := []string{"Cargo.toml (test configuration)", "pyproject.toml (test configuration)", "pytest.ini", "tests/conftest.py (test configuration)", "web/jest.config.js", "web/package.json (test configuration: check)"}
	if !slices.Equal(got, want) {
		t.Errorf("RunnerItems = %q\nwant %q", got, want)
	}
	for _, item := range got {
		if p, ok := ViewPath(item); strings.Contains(item, "(") != ok || strings.Contains(p, "(") {
			t.Errorf("ViewPath(%q) = %q, %v", item, p, ok)
		}
	}
	setup := SetupFiles("web", []byte(`module.exports = {setupFilesAfterEach: ["<rootDir>/test/setup.js", "./more.ts"], testEnvironment: "node", reporters: ["default"]}`))
	if !slices.Equal(setup, []string{"web/test/setup.js", "web/more.ts"}) {
		t.Errorf("SetupFiles = %q", setup)
	}
}
