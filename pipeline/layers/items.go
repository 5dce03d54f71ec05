package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// FrontMatterItem names the guard item of a spec's front matter (its
// completion criteria): the spec's path with this suffix.
const FrontMatterItem = " (front matter)"

// Tree is the working tree as the verifier guard reads it, through the
// engine: whether a repo-relative, slash-separated path is a regular
// file, its content (at most limit bytes; an error for a file that is not
// a small regular one), the repository's files, and a file's hash.
type Tree interface {
	IsFile(rel string) bool
	Read(rel string, limit int64) ([]byte, error)
	Files() []string
	// Sum is the hex sha256 of a file ("" when it is missing, a reason
	// starting "unreadable: " when it cannot be read): of its whole
	// content, streamed, when limit is 0, else of part(content) for
	// content read within limit.
	Sum(rel string, limit int64, part func(content []byte) []byte) string
}

// GuardItems lists, sorted, what the stage's guard covers now: the files
// its verification runs ([GuardedFiles]) and what those scripts source or
// run, the spec's front matter and the config file (configPath, "" when
// it lies outside the repository), the test files unless the stage allows
// test changes, and what decides how the tests run ([RunnerItems]) with
// the setup files the jest and vitest configurations name, unless the
// stage allows verifier changes.
func GuardItems(t Tree, specPath, configPath string, crit schema.Criteria) []string {
	set := map[string]bool{}
	for _, f := range GuardedFiles(crit, t.IsFile) {
		set[f] = true
		b, err := t.Read(f, safefile.SourceLimit)
		if err != nil || !strings.HasPrefix(string(b), "#!") && !strings.HasSuffix(f, "sh") {
			continue
		}
		for _, s := range Called(string(b)) {
			for _, rel := range []string{path.Clean(s), path.Join(path.Dir(f), s)} {
				if !strings.HasPrefix(rel, "../") && !path.IsAbs(rel) && t.IsFile(rel) {
					set[rel] = true
				}
			}
		}
	}
	if specPath != "" && t.IsFile(specPath) {
		set[specPath+FrontMatterItem] = true
	}
	if configPath != "" && t.IsFile(configPath) {
		set[configPath] = true
	}
	files := t.Files()
	for _, f := range files {
		if item, ok := TestItem(f, crit.AllowTestChanges); ok {
			set[item] = true
		}
	}
	for _, item := range runnerItems(t, files, crit) {
		set[item] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// runnerItems lists what decides how the tests run (RunnerItems), whatever
// the stage may do to tests, and the setup files the jest and vitest
// configurations name; none when the stage allows verifier changes.
func runnerItems(t Tree, files []string, crit schema.Criteria) []string {
	commands, allow := Commands(crit)
	if allow {
		return nil
	}
	items := RunnerItems(files, commands)
	for _, item := range items {
		p, _ := ViewPath(item)
		if base := path.Base(p); base != "package.json" && !strings.HasPrefix(base, "jest.config.") && !strings.HasPrefix(base, "vitest.config.") {
			continue
		}
		b, err := t.Read(p, safefile.ConfigLimit)
		if err != nil {
			continue
		}
		for _, f := range SetupFiles(path.Dir(p), b) {
			if !strings.HasPrefix(f, "../") && t.IsFile(f) {
				items = append(items, f)
			}
		}
	}
	return items
}

// Stops finds, among the items guarded after a rotation (now, their
// hashes) that the baseline did not hold, the test files and runner
// configurations that can stop the existing tests from running: each
// with why ([StopsTests]).
func Stops(t Tree, baseline, now map[string]string, allowTestChanges bool) map[string]string {
	stops := markedNewTests(t, baseline, now)
	for item, h := range now {
		f, _ := ViewPath(item)
		if _, old := baseline[item]; old || h == "" {
			continue
		}
		if !IsRunnerConfig(f) && (allowTestChanges || !IsTestFile(f)) {
			continue
		}
		if _, old := baseline[f]; old && f != item {
			continue
		}
		b, err := t.Read(f, safefile.SourceLimit)
		if err != nil {
			continue
		}
		if why := StopsTests(f, string(b)); why != "" {
			if stops == nil {
				stops = map[string]string{}
			}
			stops[f] = why
		}
	}
	return stops
}

// The guard items of a test file whose runners say how a test starts
// (verify.SyntaxOf): its path with TestsSuffix, hashed as the set of its
// units ([UnitSet]), so that tests may be added while those of the
// stage's start stay; with OpenTestsSuffix in a stage that may change
// tests, where only the tests a rotation adds are judged ([Stops]).
const (
	TestsSuffix     = " (tests)"
	OpenTestsSuffix = " (tests that may change)"
)

// TestItem is the guard item of rel when it is a test file ([IsTestFile]):
// per test where its runners say how a test starts, else the whole file
// (none when the stage may change tests).
func TestItem(rel string, allowTestChanges bool) (string, bool) {
	if !IsTestFile(rel) {
		return "", false
	}
	_, perTest := verify.SyntaxOf(rel)
	switch {
	case perTest && allowTestChanges:
		return rel + OpenTestsSuffix, true // only to tell the tests a rotation adds
	case perTest:
		return rel + TestsSuffix, true
	case !allowTestChanges:
		return rel, true
	}
	return "", false
}

// TestsPath is the test file of a per-test guard item, and whether the
// stage may change its tests.
func TestsPath(item string) (file string, open, ok bool) {
	if f, ok := strings.CutSuffix(item, OpenTestsSuffix); ok {
		return f, true, true
	}
	f, ok := strings.CutSuffix(item, TestsSuffix)
	return f, false, ok
}

// unitSet is the guard hash of a test file read through t: the set of
// its units, "" when it is missing.
func unitSet(t Tree, file string) string {
	units, err := readUnits(t, file)
	switch {
	case err != nil:
		return "unreadable: " + err.Error()
	case units == nil:
		return ""
	}
	return UnitSet(units)
}

// readUnits reads a test file's units through t (nil, nil when it is
// missing).
func readUnits(t Tree, file string) ([]Unit, error) {
	if !t.IsFile(file) {
		return nil, nil
	}
	b, err := t.Read(file, safefile.SourceLimit)
	if err != nil {
		return nil, err
	}
	syn, _ := verify.SyntaxOf(file)
	units := Units(b, syn)
	if units == nil {
		units = []Unit{}
	}
	return units, nil
}

// ItemHash is the guard hash of item when its file holds content: the set
// of its units for a test file guarded per test ([UnitSet]), else the
// hex sha256 of its part ([ItemContent]).
func ItemHash(item string, content []byte) string {
	if f, _, ok := TestsPath(item); ok {
		syn, _ := verify.SyntaxOf(f)
		return UnitSet(Units(content, syn))
	}
	sum := sha256.Sum256(ItemContent(item, content))
	return hex.EncodeToString(sum[:])
}

// ItemFile is the repo-relative file a guard item reads, and the most of
// it that is read for a part of it (a spec's front matter, the view of a
// runner configuration's test keys); limit is 0 for an item that is the
// whole file, hashed as it is, however large.
func ItemFile(item string) (file string, limit int64) {
	if f, _, ok := TestsPath(item); ok {
		return f, safefile.SourceLimit
	}
	if spec, ok := strings.CutSuffix(item, FrontMatterItem); ok {
		return spec, safefile.SpecLimit
	}
	if p, ok := ViewPath(item); ok {
		return p, safefile.ConfigLimit
	}
	return item, 0
}

// ItemContent is the part of its file's content a guard item hashes.
func ItemContent(item string, content []byte) []byte {
	if _, ok := strings.CutSuffix(item, FrontMatterItem); ok {
		fm, _, _, _ := schema.SplitFrontMatter(item, content)
		return fm
	}
	if _, ok := ViewPath(item); ok {
		return View(item, content)
	}
	return content
}

// markedNewTests finds the tests a rotation added (to a test file of the
// stage's start, or in a new one) that a marker keeps from counting as
// passed: skipped, expected to fail, focused, inverted or a todo. A new
// test must run and pass, whatever the stage may do to tests.
func markedNewTests(t Tree, baseline, now map[string]string) map[string]string {
	var out map[string]string
	for item, h := range now {
		f, _, ok := TestsPath(item)
		if !ok || !strings.HasPrefix(h, UnitSetPrefix) || h == baseline[item] {
			continue
		}
		units, err := readUnits(t, f)
		if err != nil {
			continue
		}
		syn, _ := verify.SyntaxOf(f)
		for _, m := range MarkedTests(AddedUnits(baseline[item], units), syn) {
			if out == nil {
				out = map[string]string{}
			}
			line, why, _ := strings.Cut(m, ": ")
			out[f+":"+line] = "a new test " + why + NewTestMustPass
		}
	}
	return out
}
