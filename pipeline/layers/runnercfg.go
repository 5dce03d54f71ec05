package layers

import (
	"bytes"
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// What decides how tests run is a verifier (part of layer 4). The test
// runner's configuration and entry points, in each ecosystem's own places,
// are guard items whatever the stage may do to tests: a claim made while
// what they say about tests differs from the stage's start is rejected,
// naming the file and its part. Files that hold other things too (a
// pyproject.toml, a package.json, a Cargo.toml, a pom.xml) are guarded by
// a view of their relevant keys only ([View]), so that an honest edit
// elsewhere in the same file (a version, a dependency) passes:
//
//   - Python: pyproject.toml's [tool.pytest.*] and [tool.coverage.*];
//     setup.cfg's [tool:pytest] and [coverage:*]; tox.ini's [pytest],
//     [coverage:*] and [testenv*]; pytest.ini and .coveragerc whole; every
//     conftest.py's hooks (pytest_*), autouse fixtures and module-level
//     statements (plain fixtures may change);
//   - JavaScript/TypeScript: package.json's jest, vitest, mocha, ava, c8
//     and nyc keys and the scripts behind the verification command (npm
//     test, npm run X, yarn X, pnpm X, and the scripts they run);
//     jest.config.*, vitest.config.*, .mocharc.* whole, and the setup
//     files they name;
//   - Rust: Cargo.toml's [lib], [[test]], [[bin]], [features],
//     [profile.test] and package.autotests;
//   - Java: pom.xml's surefire and failsafe plugins and skip/test
//     properties; build.gradle(.kts)'s test blocks;
//   - Go: every *_test.go file's build constraints, TestMain and init
//     functions (see gotest.go).
//
// A runner configuration the loop adds (a pytest.ini beside a
// pyproject.toml, a jest.config.js, a conftest.py with hooks) is judged by
// [StopsTests].

// ViewSuffix marks a guard item hashed by its view ([View]); a
// package.json item may name the scripts of the verification command
// before the closing parenthesis ("package.json (test configuration:
// check)").
const ViewSuffix = " (test configuration)"

// RunnerItems lists, sorted, the guard items of the files among files
// (repo-relative, slash-separated) that decide how tests run; commands are
// the stage's verification commands (shell text), whose npm/yarn/pnpm
// scripts join the package.json view.
func RunnerItems(files, commands []string) []string {
	set := map[string]bool{}
	for _, f := range files {
		base := path.Base(f)
		switch {
		case viewed[base] && !strings.Contains(f, "node_modules/"):
			set[f+ViewSuffix] = true
		case base == "pytest.ini" || base == ".coveragerc" || isJSRunnerConfig(base):
			if !strings.Contains(f, "node_modules/") {
				set[f] = true
			}
		case base == "conftest.py" || isGoTest(f):
			set[f+ViewSuffix] = true
		}
	}
	// The package.json view also keeps the scripts the commands run.
	var named []string
	for _, c := range commands {
		for _, m := range runsScript.FindAllStringSubmatch(c, -1) {
			if m[1] != "test" && m[1] != "t" {
				named = append(named, m[1])
			}
		}
	}
	if len(named) > 0 {
		slices.Sort(named)
		named = slices.Compact(named)
		for item := range set {
			if p, _ := ViewPath(item); path.Base(p) == "package.json" {
				delete(set, item)
				set[strings.TrimSuffix(item, ")")+": "+strings.Join(named, ", ")+")"] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// viewed are the files guarded by a view of their test keys.
var viewed = map[string]bool{"pyproject.toml": true, "setup.cfg": true, "tox.ini": true, "package.json": true, "Cargo.toml": true, "pom.xml": true, "build.gradle": true, "build.gradle.kts": true,
	"vite.config.js": true, "vite.config.ts": true, "vite.config.mjs": true, "vite.config.mts": true, "vite.config.cjs": true}

func isJSRunnerConfig(base string) bool {
	for _, p := range []string{"jest.config.", "vitest.config.", ".mocharc", "vitest.workspace."} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// ViewPath is the file a guard item hashed by its view reads.
func ViewPath(item string) (string, bool) {
	p, rest, ok := strings.Cut(item, strings.TrimSuffix(ViewSuffix, ")"))
	return p, ok && strings.HasSuffix(rest, ")") && (rest == ")" || strings.HasPrefix(rest, ": "))
}

// viewScripts are the scripts a package.json item names.
func viewScripts(item string) []string {
	_, rest, _ := strings.Cut(item, strings.TrimSuffix(ViewSuffix, ")")+": ")
	if rest == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(rest, ")"), ", ")
}

// View is what a guard item hashed by its view keeps of content: the keys
// of its file that decide how tests run, in a canonical form (so that
// reordering or reformatting them is no change). Content that cannot be
// parsed is kept whole: a broken config is a change.
func View(item string, content []byte) []byte {
	p, _ := ViewPath(item)
	if isGoTest(p) {
		return goTestView(content)
	}
	switch path.Base(p) {
	case "pyproject.toml":
		return tomlView(content, func(k []string) bool {
			return len(k) >= 2 && k[0] == "tool" && (k[1] == "pytest" || k[1] == "coverage")
		})
	case "Cargo.toml":
		return tomlView(content, func(k []string) bool {
			switch {
			case len(k) == 1:
				return k[0] == "lib" || k[0] == "test" || k[0] == "bin" || k[0] == "features"
			case len(k) >= 2:
				return k[0] == "profile" && k[1] == "test" || k[0] == "package" && k[1] == "autotests"
			}
			return false
		})
	case "setup.cfg", "tox.ini":
		return iniView(content, func(section string) bool {
			return section == "tool:pytest" || section == "pytest" || strings.HasPrefix(section, "coverage:") || strings.HasPrefix(section, "testenv")
		})
	case "package.json":
		return packageView(content, viewScripts(item))
	case "conftest.py":
		return conftestView(content)
	case "pom.xml":
		return pomView(content)
	case "build.gradle", "build.gradle.kts":
		return gradleView(content)
	}
	if isViteConfig(path.Base(p)) {
		return viteView(content)
	}
	return content
}

// tomlView keeps the values whose key path keep selects, as canonical
// JSON.
func tomlView(content []byte, keep func(key []string) bool) []byte {
	var doc map[string]any
	if err := toml.Unmarshal(content, &doc); err != nil {
		return content
	}
	out := map[string]any{}
	var walk func(prefix []string, m map[string]any)
	walk = func(prefix []string, m map[string]any) {
		for k, v := range m {
			key := append(slices.Clone(prefix), k)
			if keep(key) {
				out[strings.Join(key, ".")] = v
				continue
			}
			if sub, ok := v.(map[string]any); ok {
				walk(key, sub)
			}
		}
	}
	walk(nil, doc)
	b, _ := json.Marshal(out) // maps marshal with sorted keys
	return b
}

// iniView keeps the sections keep selects, without comments, blank lines
// and the spaces around "=".
func iniView(content []byte, keep func(section string) bool) []byte {
	var b bytes.Buffer
	in := false
	for _, line := range strings.Split(string(content), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			in = keep(strings.TrimSpace(t[1 : len(t)-1]))
		}
		if in {
			if k, v, ok := strings.Cut(t, "="); ok && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
				t = strings.TrimSpace(k) + "=" + strings.TrimSpace(v)
			}
			b.WriteString(t + "\n")
		}
	}
	return b.Bytes()
}

// packageView keeps package.json's test runner keys and its test
// scripts: test, and every script a kept script runs (npm run X, yarn X,
// pnpm X), with their pre and post scripts.
func packageView(content []byte, named []string) []byte {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(content, &doc); err != nil {
		return content
	}
	out := map[string]any{}
	for _, k := range []string{"jest", "vitest", "mocha", "ava", "c8", "nyc"} {
		if v, ok := doc[k]; ok {
			out[k] = canonicalJSON(v)
		}
	}
	var scripts map[string]string
	_ = json.Unmarshal(doc["scripts"], &scripts)
	kept := map[string]string{}
	var follow func(name string)
	follow = func(name string) {
		for _, n := range []string{"pre" + name, name, "post" + name} {
			body, ok := scripts[n]
			if _, seen := kept[n]; !ok || seen {
				continue
			}
			kept[n] = body
			for _, m := range runsScript.FindAllStringSubmatch(body, -1) {
				follow(m[1])
			}
		}
	}
	follow("test")
	for _, n := range named {
		follow(n)
	}
	for name := range scripts {
		if strings.HasPrefix(name, "test") {
			follow(name)
		}
	}
	out["scripts"] = kept
	b, _ := json.Marshal(out)
	return b
}

// runsScript finds the scripts a package.json script (or a verification
// command) runs.
var runsScript = lazyregexp.New(`\b(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+|)([\w:.-]+)`)

func canonicalJSON(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

var (
	pyDecorator = lazyregexp.New(`^@`)
	pyFixture   = lazyregexp.New(`^@(pytest\.)?fixture\b`)
	pyAutouse   = lazyregexp.New(`autouse\s*=\s*True`)
	pyPlainDef  = lazyregexp.New(`^(async\s+)?def\s+(\w+)`)
)

// conftestView keeps what in a conftest.py decides how tests run: its
// pytest_* hooks, autouse fixtures, imports and module-level statements;
// plain fixtures, helper functions, comments and blank lines may change.
func conftestView(content []byte) []byte {
	var b bytes.Buffer
	for _, block := range pyBlocks(string(content)) {
		head := block[0]
		decorated := pyDecorator.MatchString(head)
		def := ""
		for _, l := range block {
			if m := pyPlainDef.FindStringSubmatch(l); m != nil {
				def = m[2]
				break
			}
		}
		switch {
		case strings.HasPrefix(def, "pytest_"):
		case decorated && pyFixture.MatchString(head) && !pyAutouse.MatchString(strings.Join(block, "\n")):
			continue // a plain fixture
		case !decorated && def != "":
			continue // a helper function
		case strings.HasPrefix(head, "class "):
			continue
		}
		for _, l := range block {
			b.WriteString(l + "\n")
		}
	}
	return b.Bytes()
}

// pyBlocks splits Python source into its top-level statements (with their
// decorators and indented bodies), without comments and blank lines.
func pyBlocks(src string) [][]string {
	var out [][]string
	var cur []string
	pendingDecorator := false
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, " \t\r")
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		top := line[0] != ' ' && line[0] != '\t' && !strings.HasPrefix(t, ")") && !strings.HasPrefix(t, "]") && !strings.HasPrefix(t, "}")
		if top && !pendingDecorator {
			if cur != nil {
				out = append(out, cur)
			}
			cur = nil
		}
		cur = append(cur, line)
		if top {
			pendingDecorator = strings.HasPrefix(t, "@")
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

var (
	pomPlugin     = lazyregexp.New(`(?s)<plugin>.*?</plugin>`)
	pomProperties = lazyregexp.New(`(?s)<properties>(.*?)</properties>`)
	pomTestProp   = lazyregexp.New(`(?i)<([\w.-]*(skip|test)[\w.-]*)>[^<]*</[\w.-]+>`)
	xmlComment    = lazyregexp.New(`(?s)<!--.*?-->`)
	gradleBlock   = lazyregexp.New(`(?m)^\s*(test|tasks\.test|tasks\.named\(["']test["']\)|tasks\.withType\(Test\)|tasks\.withType<Test>)\s*(\{|\.configure\s*\{)`)
)

// pomView keeps pom.xml's surefire and failsafe plugins and its
// properties that skip or configure tests.
func pomView(content []byte) []byte {
	src := xmlComment.ReplaceAllString(string(content), "")
	var b strings.Builder
	for _, p := range pomPlugin.FindAllString(src, -1) {
		if strings.Contains(p, "surefire") || strings.Contains(p, "failsafe") {
			b.WriteString(strings.Join(strings.Fields(p), " ") + "\n")
		}
	}
	for _, props := range pomProperties.FindAllStringSubmatch(src, -1) {
		for _, m := range pomTestProp.FindAllString(props[1], -1) {
			b.WriteString(strings.Join(strings.Fields(m), " ") + "\n")
		}
	}
	return []byte(b.String())
}

// gradleView keeps the test task's blocks of a Gradle build script.
func gradleView(content []byte) []byte {
	src := string(content)
	var b strings.Builder
	for _, loc := range gradleBlock.FindAllStringIndex(src, -1) {
		depth, end := 0, len(src)
		for i := loc[1] - 1; i < len(src); i++ {
			if src[i] == '{' {
				depth++
			} else if src[i] == '}' {
				if depth--; depth == 0 {
					end = i + 1
					break
				}
			}
		}
		b.WriteString(strings.Join(strings.Fields(src[loc[0]:end]), " ") + "\n")
	}
	return []byte(b.String())
}

var (
	setupKeys  = lazyregexp.New(`(?s)\b(setupFiles|setupFilesAfterEach|setupFilesAfterEnv|globalSetup|globalTeardown|testEnvironment|snapshotResolver|testRunner|runner|reporters)\b["']?\s*:\s*(\[[^\]]*\]|"[^"]*"|'[^']*')`)
	quotedPath = lazyregexp.New(`["']([^"']+)["']`)
	jsFile     = lazyregexp.New(`\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)
)

// SetupFiles lists the files a jest or vitest configuration (a
// jest.config.*, a vitest.config.*, or a package.json's jest or vitest
// key) names as setup, environment, runner or reporter modules, relative
// to dir (the configuration's folder; <rootDir> is dir). The caller keeps
// those that are files of the repository.
func SetupFiles(dir string, content []byte) []string {
	var out []string
	for _, m := range setupKeys.FindAllStringSubmatch(string(content), -1) {
		for _, q := range quotedPath.FindAllStringSubmatch(m[2], -1) {
			p, rooted := strings.CutPrefix(q[1], "<rootDir>/")
			if path.IsAbs(p) || !rooted && !strings.HasPrefix(p, ".") && !jsFile.MatchString(p) {
				continue // a package, not a file of the repository
			}
			out = append(out, path.Clean(path.Join(dir, p)))
		}
	}
	return out
}

// Commands lists the shell text of crit's verification commands (those
// of a method that runs commands, verify.Commands: its own, or its
// multi_stage stages'), and whether any of them allows verifier changes
// (then the runner configuration is not guarded).
func Commands(crit schema.Criteria) (commands []string, allowChanges bool) {
	for _, cfg := range verify.Commands(crit.VerificationMethod, crit.VerificationConfig) {
		allowChanges = allowChanges || cfg.AllowVerifierChanges
		if cfg.Command != nil {
			commands = append(commands, cfg.Command.String())
		}
	}
	return commands, allowChanges
}

// viteView keeps what in vite's configuration is vitest's: its test block
// (from a line holding "test:" to the end of that block, by
// indentation) and the resolve block (aliases change what tests import),
// trimmed, without comments and blank lines; build options may change.
func viteView(content []byte) []byte {
	var b strings.Builder
	in := -1
	for _, line := range strings.Split(string(content), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		d := len(line) - len(strings.TrimLeft(line, " \t"))
		if in >= 0 && d <= in && !strings.HasPrefix(t, "}") && !strings.HasPrefix(t, "]") {
			in = -1
		}
		if in < 0 && viteKey.MatchString(t) {
			in = d
		}
		if in >= 0 {
			b.WriteString(t + "\n")
		}
	}
	return []byte(b.String())
}

var viteKey = lazyregexp.New(`^(test|resolve)\s*:`)
