package layers

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// Tampering (layer "tampering"): code the loop added that changes what
// the tests see from outside a test, in the language itself rather than
// in a runner's configuration (the verifier guard's). Each finding names
// the file and the line:
//
//   - a test module that patches other tests or the code under test when
//     it is imported: a module-level assignment to another module's or
//     class's attribute (another test's method, unittest.TestCase's
//     assertEqual, the function under test), setattr, a mock.patch or
//     patcher started, sys.modules replaced; in JavaScript and TypeScript
//     tests, at the top level, a prototype or a global replaced, a spy or
//     a stubbed global, a built-in matcher redefined with expect.extend;
//   - a new module or package that shadows what the verification runs:
//     the module of a `python -m X` in the stage's commands or the
//     scripts they call, and Python's own test machinery (unittest,
//     pytest, doctest, …), at the repository's root; a new sitecustomize,
//     usercustomize or .pth file anywhere;
//   - library code (outside tests) that reads how a test runner is
//     detected (process.env.VITEST, 'unittest' in sys.modules, …: each
//     runner's Detect in pipeline/verify's registry).

// TamperFacts are what the tampering layer reads besides the loop's
// added lines.
type TamperFacts struct {
	// Modules are the Python modules the stage's verification runs with
	// `python -m` ([RunModules]).
	Modules []string
}

// Finding is one thing a layer found, where it is.
type Finding struct {
	File string
	Line int // 0: the whole file
	Why  string
}

func (f Finding) String() string {
	if f.Line == 0 {
		return f.File + ": " + f.Why
	}
	return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Why)
}

// testMachinery are the modules Python's test runners are made of: a
// local one of the same name runs instead of them.
var testMachinery = []string{"unittest", "pytest", "_pytest", "doctest", "nose", "nose2", "pluggy", "coverage"}

var pythonModule = lazyregexp.New(`\bpython[0-9.]*\s+(?:-[A-Za-z]+\s+)*-m\s+([A-Za-z_][\w.]*)`)

// RunModules are the Python modules that texts (the verification
// commands and the scripts they call) run with `python -m X`: the
// top-level package of each.
func RunModules(texts ...string) []string {
	var out []string
	for _, t := range texts {
		for _, m := range pythonModule.FindAllStringSubmatch(t, -1) {
			top, _, _ := strings.Cut(m[1], ".")
			out = append(out, top)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Tampering lists what the loop added that changes what the tests see
// (see the layer's comment), in file order.
func Tampering(added Added, where Where, modules []string) []Finding {
	shadowed := map[string]string{}
	for _, m := range testMachinery {
		shadowed[m] = "Python's " + m
	}
	for _, m := range modules {
		shadowed[m] = "what the verification runs (python -m " + m + ")"
	}
	detect := detectors()
	var out []Finding
	for _, f := range slices.Sorted(maps.Keys(added)) {
		if IsFixture(f) || strings.HasPrefix(f, ".ralph/") {
			continue
		}
		if where.New[f] {
			if why := shadows(f, shadowed); why != "" {
				out = append(out, Finding{File: f, Why: why})
			}
		}
		lines := added[f]
		switch ext := path.Ext(f); {
		case IsTestFile(f) && ext == ".py":
			out = append(out, patches(f, lines, where, pyImportPatch)...)
		case IsTestFile(f) && jsExt[ext]:
			out = append(out, patches(f, lines, where, jsTopLevelPatch)...)
			out = append(out, matcherOverride(f, lines, where)...)
		case !IsTestFile(f) && codeExt[ext]:
			out = append(out, detects(f, lines, where, detect)...)
		}
	}
	return out
}

// shadows tells why a new file shadows a module ("" when it does not).
func shadows(f string, shadowed map[string]string) string {
	base, dir := path.Base(f), path.Dir(f)
	switch {
	case base == "sitecustomize.py" || base == "usercustomize.py":
		return "a new " + base + " runs in every Python process that has it on its path, the verification's included"
	case path.Ext(base) == ".pth":
		return "a new .pth file runs code in every Python process of the environment it is in"
	}
	var module string
	switch {
	case dir == "." && path.Ext(base) == ".py":
		module = strings.TrimSuffix(base, ".py")
	case !strings.Contains(dir, "/") && dir != "." && (base == "__init__.py" || base == "__main__.py"):
		module = dir
	}
	if what, ok := shadowed[module]; ok {
		return fmt.Sprintf("a new module %q at the repository's root shadows %s", module, what)
	}
	return ""
}

var (
	jsExt   = map[string]bool{".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true, ".mts": true, ".cts": true}
	codeExt = map[string]bool{".py": true, ".go": true, ".rs": true, ".rb": true, ".java": true, ".kt": true, ".scala": true, ".cs": true, ".php": true, ".swift": true,
		".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true, ".mts": true, ".cts": true}
)

// patch is a pattern of a line at the top level of a test module, and
// what it does.
type patch struct {
	re  *lazyregexp.Regexp
	why string
}

// pyImportPatch are statements at a Python test module's top level (no
// indentation) that patch other code when the module is imported:
// unittest imports every test module before it runs any test.
var pyImportPatch = []patch{
	{lazyregexp.New(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+\s*(=[^=]|\+=|-=)`), "replaces another module's or class's attribute when imported (another test's method, assertEqual, the code under test)"},
	{lazyregexp.New(`^(setattr|delattr)\(`), "patches another module or class with %s when imported"},
	{lazyregexp.New(`^[\w.]*\b(patch|patcher|patchers?)\b.*\.start\(\)|^.*\bpatch(\.object|\.dict|\.multiple)?\(.*\)\.start\(\)|^\w+\.start\(\)`), "starts a mock.patch when imported, for every test that runs after it"},
	{lazyregexp.New(`^sys\.modules\s*\[.*\]\s*=[^=]|^sys\.modules\.(update|setdefault)\(`), "replaces a module in sys.modules when imported"},
	{lazyregexp.New(`^(builtins|__builtins__)\b`), "patches Python's builtins when imported"},
}

// jsTopLevelPatch are statements at a JavaScript or TypeScript test
// file's top level that patch what other code sees: a spy or a stub made
// outside any test, a prototype or a global replaced.
var jsTopLevelPatch = []patch{
	{lazyregexp.New(`^(globalThis|global|window|self)\.[\w$]+\s*=[^=]`), "replaces a global at the top level of the test file"},
	{lazyregexp.New(`^Object\.(defineProperty|assign)\(\s*(globalThis|global|window|expect|[\w$.]+\.prototype)\b`), "redefines a global, expect or a prototype at the top level of the test file"},
	{lazyregexp.New(`^[\w$.]+\.prototype\.[\w$]+\s*=[^=]`), "replaces a prototype's method at the top level of the test file"},
	{lazyregexp.New(`^(vi|jest)\.(spyOn|stubGlobal|stubEnv)\(`), "spies on or stubs the code at the top level of the test file, outside any test"},
	{lazyregexp.New(`^(expect|assert|chai)\.[\w$]+\s*=[^=]`), "replaces an assertion at the top level of the test file"},
}

// patches lists the added lines of f that match a pattern at the top
// level.
func patches(f string, lines []string, where Where, pats []patch) []Finding {
	var out []Finding
	for i, l := range lines {
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		for _, p := range pats {
			if p.re.MatchString(l) {
				why := p.why
				if strings.Contains(why, "%s") {
					why = fmt.Sprintf(why, strings.SplitN(l, "(", 2)[0])
				}
				out = append(out, Finding{File: f, Line: where.Line(f, i), Why: fmt.Sprintf("%s: %s", strings.TrimSpace(clipLine(l)), why)})
				break
			}
		}
	}
	return out
}

var (
	extendAt      = lazyregexp.New(`^expect\.extend\(`)
	builtInMatch  = lazyregexp.New(`\b(toBe|toEqual|toStrictEqual|toThrow|toThrowError|toBeTruthy|toBeFalsy|toBeDefined|toContain|toMatch|toMatchObject|toHaveLength|toHaveProperty|toHaveBeenCalled\w*|toBeCloseTo|toBeNull|toBeUndefined|resolves|rejects)\s*[(:]`)
	extendReaches = 12 // lines of an expect.extend({...}) read for the matchers it defines
)

// matcherOverride lists the expect.extend calls at a test file's top
// level that redefine a built-in matcher (toBe, toEqual, …) for every
// test that runs after it.
func matcherOverride(f string, lines []string, where Where) []Finding {
	var out []Finding
	for i, l := range lines {
		if !extendAt.MatchString(l) {
			continue
		}
		for _, next := range lines[i:min(len(lines), i+extendReaches)] {
			if m := builtInMatch.FindStringSubmatch(next); m != nil {
				out = append(out, Finding{File: f, Line: where.Line(f, i), Why: fmt.Sprintf("expect.extend redefines the built-in matcher %s", m[1])})
				break
			}
		}
	}
	return out
}

// detector is a pattern by which code finds out that a runner runs it,
// in files of the extensions of the runner's test files.
type detector struct {
	runner string
	re     *regexp.Regexp
	exts   map[string]bool // nil: any code file
}

// detectors are the registry's Detect patterns (verify.Runners).
func detectors() []detector {
	var out []detector
	for _, r := range verify.Runners() {
		if verify.IsNone(r.Detect) {
			continue
		}
		var exts map[string]bool
		if !verify.IsNone(r.TestFiles) {
			exts = map[string]bool{}
			for _, f := range r.TestFiles {
				exts[path.Ext(f)] = true
			}
		}
		for _, p := range r.Detect {
			if re, err := regexp.Compile(p); err == nil {
				out = append(out, detector{runner: r.Name, re: re, exts: exts})
			}
		}
	}
	return out
}

var commentStart = lazyregexp.New(`^\s*(#|//|/\*|\*)`)

// detects lists the added lines of library file f that read how a test
// runner is detected.
func detects(f string, lines []string, where Where, ds []detector) []Finding {
	var out []Finding
	for i, l := range lines {
		if commentStart.MatchString(l) {
			continue
		}
		for _, d := range ds {
			if d.exts != nil && !d.exts[path.Ext(f)] {
				continue
			}
			if m := d.re.FindString(l); m != "" {
				out = append(out, Finding{File: f, Line: where.Line(f, i), Why: fmt.Sprintf("library code reads whether %s runs it (%s): it can behave one way under the tests and another in use", d.runner, m)})
				break
			}
		}
	}
	return out
}

func clipLine(l string) string {
	if len(l) > 80 {
		return l[:77] + "..."
	}
	return l
}

// Tampering records the layer on a claim that passed so far: found are
// what [Tampering] listed. It reports whether the claim holds.
func (v *Verdict) Tampering(found []Finding) bool {
	if len(found) == 0 {
		v.Pass("tampering", "")
		return true
	}
	s := make([]string, len(found))
	for i, f := range found {
		s[i] = f.String()
	}
	v.Reject("tampering", "the loop added code that changes what the tests see: "+strings.Join(s, "; ")+"; a test must test through the code's own behaviour: remove the patch, the shadowing module or the detection")
	return false
}

func tamperLayer(v *Verdict, f *Facts) bool {
	if !f.CanDiff {
		return true
	}
	if f.Added == nil {
		v.Need = NeedAdded
		return false
	}
	if len(f.Added) == 0 {
		return true
	}
	return v.Tampering(Tampering(f.Added, f.Where, f.Tamper.Modules))
}
