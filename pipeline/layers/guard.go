package layers

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The verifier tamper guard (layer 4). What judges the agent is guarded
// by hashes recorded when the stage starts (before its first rotation):
// the files its verification commands run — the script a command names
// (its first word, or the second after an interpreter such as sh or
// python) when it is a file in the repository, what those scripts source,
// and every `guard` file —, the spec's front matter and the config file
// (the completion criteria: commands, options, guard lists), and the
// test files ([IsTestFile]) unless the criteria allow test changes. A claim
// made while any of them differs from that baseline is rejected, naming
// them, unless the config that names a script says
// allow_verifier_changes: true.
//
// The baseline moves only by changes made outside the loop: a change made
// between two rotations (a person editing a test between runs) is adopted
// ([Adopt]), for the items it touched only. A change a rotation made is
// never adopted: not when the spec it edited changes its hash, and not
// after the rotation was interrupted and runs again ([Rebase] with
// resumed). The engine reads the files (Tree); this package hashes and
// decides ([GuardBefore], [GuardAfter]).

// interpreters run the script named by their first argument.
var interpreters = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "python": true, "python3": true, "node": true, "ruby": true, "perl": true, "php": true, "deno": true, "bun": true, "tsx": true}

// GuardedFiles lists the repo-relative files the stage's verification
// runs (the commands of a method that runs commands, verify.Commands), sorted, without those whose config allows changes. isFile tells
// whether a repo-relative, slash-separated path is a regular file: a word
// of a command counts as a script only then; `guard` entries always count.
func GuardedFiles(crit schema.Criteria, isFile func(rel string) bool) []string {
	set := map[string]bool{}
	add := func(cfg schema.VerificationConfig) {
		if cfg.AllowVerifierChanges {
			return
		}
		for _, g := range cfg.Guard {
			set[path.Clean(g)] = true
		}
		if cfg.Command == nil {
			return
		}
		for _, s := range scripts(*cfg.Command) {
			rel := path.Join(cfg.WorkingDir, s)
			if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(s) {
				continue
			}
			if isFile(rel) {
				set[rel] = true
			}
		}
	}
	for _, cfg := range verify.Commands(crit.VerificationMethod, crit.VerificationConfig) {
		add(cfg)
	}
	return slices.Sorted(maps.Keys(set))
}

// scripts are the words of a command that may name the script it runs.
func scripts(c schema.Command) []string {
	if c.Argv != nil {
		return scriptOf(c.Argv)
	}
	var out []string
	for _, simple := range strings.FieldsFunc(c.Shell, func(r rune) bool { return strings.ContainsRune(";&|\n()", r) }) {
		out = append(out, scriptOf(strings.Fields(simple))...)
	}
	return out
}

func scriptOf(words []string) []string {
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") { // VAR=value cmd
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	first := strings.Trim(words[0], `"'`)
	out := []string{first}
	if interpreters[path.Base(first)] {
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") {
				out = append(out, strings.Trim(w, `"'`))
				break
			}
		}
	}
	return out
}

// GuardKey identifies what a baseline was recorded for: the stage, the
// spec's hash and the guarded files, as they were then. Only its stage
// decides whether a new baseline is due ([Rebase]).
func GuardKey(stage, specHash string, files []string) string {
	return fmt.Sprintf("%s@%s@%s", stage, specHash, strings.Join(files, ","))
}

// Rebasing is what happens to the guard's baseline before a rotation.
type Rebasing int

// The outcomes of [Rebase].
const (
	RebaseKeep  Rebasing = iota // the baseline stands
	RebaseNew                   // the stage starts: record it afresh
	RebaseMoved                 // guarded items changed between rotations, outside ralph-ci: adopt those changes ([Adopt])
)

// Rebase tells what to do with the guard's baseline before a rotation on
// stage: recorded is the key of the saved baseline ([GuardKey]), seen the
// hashes the last rotation left and now the hashes at hand; resumed tells
// that the rotation about to run is an interrupted one run again, so that
// any difference is that rotation's own work. A spec whose content
// changed keeps its baseline: the loop may have changed it.
func Rebase(stage, recorded string, resumed bool, seen, now map[string]string) Rebasing {
	recStage, _, _ := strings.Cut(recorded, "@")
	switch {
	case recorded == "" || recStage != stage:
		return RebaseNew
	case resumed:
		return RebaseKeep
	}
	for k, h := range now {
		if _, was := seen[k]; !was {
			if _, open, ok := TestsPath(k); ok && open {
				continue // tests that may change appear with allow_test_changes: nothing moved
			}
		}
		if seen[k] != h {
			return RebaseMoved
		}
	}
	return RebaseKeep
}

// Adopt is the baseline after a [RebaseMoved]: an item that changed
// between rotations (now differs from seen) takes its new hash; every
// other item keeps its baseline hash, so a rotation's earlier tampering is
// not laundered by a person's unrelated change; items new to the list
// join with their hash.
func Adopt(baseline, seen, now map[string]string) map[string]string {
	out := maps.Clone(baseline)
	if out == nil {
		out = map[string]string{}
	}
	for k, h := range now {
		_, known := baseline[k]
		if seen[k] != h || !known {
			out[k] = h
		}
	}
	return out
}

// Guard is layer 4 on a claim that passed so far: baseline holds the
// guarded files' hashes when the stage started (none: nothing is
// guarded and the layer is not reported), now their hashes after the
// rotation. It reports whether the claim still holds.
func (v *Verdict) Guard(stage string, baseline, now map[string]string) bool {
	if len(baseline) == 0 {
		return true
	}
	if tampered := Tampered(baseline, now); len(tampered) > 0 {
		v.Reject("verifier_guard", fmt.Sprintf("the verification files changed since the %s stage started: %s; restore them, or set allow_verifier_changes: true in the spec if the change is intended (allow_test_changes: true for tests)", stage, strings.Join(tampered, ", ")))
		return false
	}
	v.Pass("verifier_guard", "unchanged: "+strings.Join(slices.Sorted(maps.Keys(baseline)), ", "))
	return true
}

// Tampered lists, sorted, the guarded items whose hash now differs from
// the baseline's, as the rejection names them: a test file guarded per
// test differs only when a test (or other unit) of the stage's start is
// gone or changed, and is named with those tests; one whose tests the
// stage may change never differs here.
func Tampered(baseline, now map[string]string) []string {
	var out []string
	for _, item := range Differing(baseline, Restrict(now, baseline)) {
		if emptyViewGone(item, baseline[item], now[item]) {
			continue
		}
		if f, open, ok := TestsPath(item); ok {
			gone, sets := Gone(baseline[item], now[item])
			switch {
			case open:
				continue
			case sets && len(gone) == 0:
				continue // only additions
			case sets:
				out = append(out, fmt.Sprintf("%s (tests changed or removed: %s)", f, strings.Join(gone, ", ")))
				continue
			}
		}
		out = append(out, item)
	}
	return out
}

// emptyHash is the sha256 of no bytes: the hash of an item whose view
// holds nothing (a Go test file without TestMain, init or build
// constraint).
const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// emptyViewGone tells a view item whose file held no test configuration
// when the stage started and is now deleted: deleting it removes no
// configuration (what its tests were is the test files' and the
// inventory's business).
func emptyViewGone(item, was, now string) bool {
	_, view := ViewPath(item)
	return view && was == emptyHash && now == ""
}

// NewTests is the guard's second half: a claim is rejected when a test
// file the loop added can stop the existing tests from running; added
// maps such files to why ([StopsTests]).
func (v *Verdict) NewTests(added map[string]string) bool {
	if len(added) == 0 {
		return true
	}
	var why, marked []string
	for _, f := range slices.Sorted(maps.Keys(added)) {
		if w, ok := strings.CutSuffix(added[f], NewTestMustPass); ok {
			marked = append(marked, fmt.Sprintf("%s (%s)", f, w))
			continue
		}
		why = append(why, fmt.Sprintf("%s (%s)", f, added[f]))
	}
	if len(marked) > 0 {
		v.Reject("verifier_guard", "new tests do not count as passing: "+strings.Join(marked, ", ")+"; a new test must run and pass: remove its marker or the test")
		return false
	}
	v.Reject("verifier_guard", "new test files can stop the existing tests from running: "+strings.Join(why, ", ")+"; remove them, or set allow_test_changes: true in the stage's criteria if the change is intended")
	return false
}

// NewTestMustPass ends why [Stops] holds a new test that a marker keeps
// from counting as passed.
const NewTestMustPass = ": a new test must run and pass"

// Restrict returns the entries of m whose keys are in keys.
func Restrict(m, keys map[string]string) map[string]string {
	out := make(map[string]string, len(keys))
	for k := range keys {
		if h, ok := m[k]; ok {
			out[k] = h
		}
	}
	return out
}

// Differing lists, sorted, the keys whose values differ between a and b,
// or that only one of them has.
func Differing(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
