package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/schema"
)

// A recognised runner gets its report without configuration: the flag or
// the variable ralph-ci adds, and the report it reads; anything else gets
// no preset.
func TestFindPreset(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"scripts":{"test":"jest --ci","unit":"vitest run","lint":"eslint . && jest","e2e":"playwright test"}}`)
	tmp := "/tmp/r"
	sh := func(s string) schema.Command { return schema.Command{Shell: s} }
	for _, tc := range []struct {
		cmd            schema.Command
		runner, report string
		run, env       string // the command run (its String), the environment added
	}{
		{sh("pytest -q"), "pytest", tmp + "/pytest.xml", "pytest -q", "PYTEST_ADDOPTS=--junitxml=/tmp/r/pytest.xml"},
		{sh("pip install -e . && python -m pytest -x tests"), "pytest", tmp + "/pytest.xml", "pip install -e . && python -m pytest -x tests", "PYTEST_ADDOPTS=--junitxml=/tmp/r/pytest.xml"},
		{schema.Command{Argv: []string{"uv", "run", "pytest"}}, "pytest", tmp + "/pytest.xml", "", "PYTEST_ADDOPTS=--junitxml=/tmp/r/pytest.xml"},
		{sh("npx jest"), "jest", tmp + "/jest.json", "npx jest --json --outputFile=/tmp/r/jest.json", ""},
		{sh("CI=1 jest src"), "jest", tmp + "/jest.json", "CI=1 jest src --json --outputFile=/tmp/r/jest.json", ""},
		{sh("npm test"), "jest", tmp + "/jest.json", "npm test -- --json --outputFile=/tmp/r/jest.json", ""},
		{sh("npm test -- --runInBand"), "jest", tmp + "/jest.json", "npm test -- --runInBand --json --outputFile=/tmp/r/jest.json", ""},
		{sh("yarn test"), "jest", tmp + "/jest.json", "yarn test --json --outputFile=/tmp/r/jest.json", ""},
		{sh("npm run unit"), "vitest", tmp + "/vitest.json", "npm run unit -- --reporter=default --reporter=json --outputFile.json=/tmp/r/vitest.json", ""},
		{schema.Command{Argv: []string{"npx", "jest", "--ci"}}, "jest", tmp + "/jest.json", `["npx","jest","--ci","--json","--outputFile=/tmp/r/jest.json"]`, ""},
		{sh("go test ./..."), "go test", "", "go test -json ./...", ""},
		{sh("go vet ./... && go test -race ./..."), "go test", "", "go vet ./... && go test -json -race ./...", ""},
		{sh("go test -json ./..."), "go test", "", "go test -json ./...", ""},
		{schema.Command{Argv: []string{"go", "test", "./..."}}, "go test", "", `["go","test","-json","./..."]`, ""},
		{schema.Command{Argv: []string{"sh", "-c", "go test ./..."}}, "go test", "", `["sh","-c","go test -json ./..."]`, ""},
		{sh("cargo test"), "cargo test", "", "cargo test --no-fail-fast", ""},
		{sh("python3 -m unittest discover -s tests"), "unittest", "", "python3 -m unittest discover -v -s tests", ""},
		{schema.Command{Argv: []string{"python3", "-m", "unittest", "discover", "-s", "tests"}}, "unittest", "", `["python3","-m","unittest","discover","-v","-s","tests"]`, ""},
		{sh("pip install -e . && python -m unittest"), "unittest", "", "pip install -e . && python -m unittest -v", ""},
		{schema.Command{Argv: []string{"python3", "-m", "unittest"}}, "unittest", "", `["python3","-m","unittest","-v"]`, ""},
		{sh("python -m unittest -v"), "unittest", "", "python -m unittest -v", ""},
		{sh("cargo test --workspace -- --test-threads=1"), "cargo test", "", "cargo test --no-fail-fast --workspace -- --test-threads=1", ""},
		{sh("mvn -q test"), "maven", dir + "/target/surefire-reports", "mvn -q test", ""},
		{sh("./gradlew test"), "gradle", dir + "/build/test-results/test", "./gradlew test", ""},
		// No preset: not a runner, a runner ralph-ci cannot add a report
		// to, a report the command writes itself.
		{sh("sh check.sh"), "", "", "", ""},
		{sh("make test"), "", "", "", ""},
		{sh("echo go test"), "", "", "", ""},
		{sh("npm run lint"), "", "", "", ""},
		{sh("npm run e2e"), "", "", "", ""},
		{sh("npx jest && echo done"), "", "", "", ""},
		{sh("npx jest --json --outputFile=out.json"), "", "", "", ""},
		{sh("mvn -q compile"), "", "", "", ""},
	} {
		p, ok := FindPreset(tc.cmd, dir, tmp, nil)
		if !ok {
			if tc.runner != "" {
				t.Errorf("%s: no preset, want %s", tc.cmd.String(), tc.runner)
			}
			continue
		}
		run := p.Command.String()
		if tc.cmd.Argv != nil {
			b, _ := p.Command.MarshalJSON()
			run = string(b)
		}
		if p.Runner != tc.runner || p.Report != tc.report || tc.run != "" && run != tc.run || strings.Join(p.Env, " ") != tc.env {
			t.Errorf("%s: preset %s report %q run %q env %q\nwant %s report %q run %q env %q", tc.cmd.String(), p.Runner, p.Report, run, p.Env, tc.runner, tc.report, tc.run, tc.env)
		}
	}
	p, _ := FindPreset(sh("pytest"), dir, tmp, []string{"PYTEST_ADDOPTS=-p no:cacheprovider"})
	if want := "PYTEST_ADDOPTS=-p no:cacheprovider --junitxml=/tmp/r/pytest.xml"; strings.Join(p.Env, "") != want {
		t.Errorf("a user's PYTEST_ADDOPTS: %q, want %q", p.Env, want)
	}
}

// The text of go test -json events is what go test -v prints; other lines
// pass as they are, however the stream is cut.
func TestGoText(t *testing.T) {
	var b strings.Builder
	g := &goText{out: &b}
	in := `{"Action":"run","Package":"x","Test":"TestA"}
{"Action":"output","Package":"x","Test":"TestA","Output":"=== RUN   TestA\n"}
# x
{"Action":"output","Package":"x","Output":"ok  \tx\t0.01s\n"}
tail`
	for i := 0; i < len(in); i += 7 {
		_, _ = g.Write([]byte(in[i:min(i+7, len(in))]))
	}
	g.Flush()
	if want := "=== RUN   TestA\n# x\nok  \tx\t0.01s\ntail\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}
}
