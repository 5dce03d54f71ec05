package layers

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/schema"
)

// The verifier tamper guard (layer 4). The files a stage's verification
// commands run — the script a command names (its first word, or the
// second after an interpreter such as sh or python) when it is a file in
// the repository, and every `guard` file — are hashed when the stage
// starts (before its first rotation; again when the spec changes). A claim
// made while any of them differs from that baseline is rejected, unless
// the config that names it says allow_verifier_changes: true. A change
// made between rotations (a person editing the test between runs) is
// taken as the new baseline; only the rotations' own changes are held
// against the claim. The engine hashes; this file decides.

// interpreters run the script named by their first argument.
var interpreters = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "python": true, "python3": true, "node": true, "ruby": true, "perl": true, "php": true, "deno": true, "bun": true, "tsx": true}

// GuardedFiles lists the repo-relative files the stage's verification
// runs, sorted, without those whose config allows changes. isFile tells
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
	switch crit.VerificationMethod {
	case "external":
		add(crit.VerificationConfig)
	case "multi_stage":
		for _, st := range crit.VerificationConfig.Stages {
			if st.Method == "external" {
				add(st.Config)
			}
		}
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
// spec's hash and the guarded files. A new key means a new baseline.
func GuardKey(stage, specHash string, files []string) string {
	return fmt.Sprintf("%s@%s@%s", stage, specHash, strings.Join(files, ","))
}

// Rebasing is what happens to the guard's baseline before a rotation.
type Rebasing int

// The outcomes of [Rebase].
const (
	RebaseKeep  Rebasing = iota // the baseline stands
	RebaseNew                   // the stage, spec or file list changed: record it afresh
	RebaseMoved                 // the files changed between rotations, outside ralph-ci: their content becomes the baseline
)

// Rebase tells what to do with the guard's baseline before a rotation:
// key is the current [GuardKey], recorded the key of the saved baseline,
// seen the hashes the last rotation left and now the hashes at hand.
func Rebase(key, recorded string, seen, now map[string]string) Rebasing {
	switch {
	case key != recorded:
		return RebaseNew
	case !maps.Equal(now, seen):
		return RebaseMoved
	}
	return RebaseKeep
}

// Guard is layer 4 on a claim that passed so far: baseline holds the
// guarded files' hashes when the stage started (none: nothing is
// guarded and the layer is not reported), now their hashes after the
// rotation. It reports whether the claim still holds.
func (v *Verdict) Guard(stage string, baseline, now map[string]string) bool {
	if len(baseline) == 0 {
		return true
	}
	if tampered := Differing(baseline, now); len(tampered) > 0 {
		v.Reject("verifier_guard", fmt.Sprintf("the verification files changed since the %s stage started: %s; restore them, or set allow_verifier_changes: true in the spec if the change is intended", stage, strings.Join(tampered, ", ")))
		return false
	}
	v.Pass("verifier_guard", "unchanged: "+strings.Join(slices.Sorted(maps.Keys(baseline)), ", "))
	return true
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
