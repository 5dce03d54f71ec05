package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The verifier tamper guard. The files a stage's verification commands
// run — the script a command names (its first word, or the second after
// an interpreter such as sh or python) when it is a file in the
// repository, and every `guard` file — are hashed when the stage starts
// (before its first rotation; again when the spec changes). A claim made
// while any of them differs from that baseline is rejected, unless the
// config that names it says allow_verifier_changes: true. A change made
// between rotations (a person editing the test between runs) is taken as
// the new baseline; only the rotations' own changes are held against the
// claim.

// interpreters run the script named by their first argument.
var interpreters = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "python": true, "python3": true, "node": true, "ruby": true, "perl": true, "php": true, "deno": true, "bun": true, "tsx": true}

// guardedFiles lists the repo-relative files the stage's verification
// runs, sorted, without those whose config allows changes.
func guardedFiles(root string, crit schema.Criteria) []string {
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
			if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil && fi.Mode().IsRegular() {
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

// hashFiles returns the sha256 of each file ("" when missing).
func hashFiles(root string, files []string) map[string]string {
	out := make(map[string]string, len(files))
	for _, f := range files {
		out[f] = hashFile(filepath.Join(root, filepath.FromSlash(f)))
	}
	return out
}

func hashFile(p string) string {
	f, _, err := safefile.OpenRegular(p)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// baselineVerifier records the guard's baseline before a rotation runs,
// when the stage starts (or the spec or its guarded files changed), and
// takes changes made since the last rotation as the new baseline. It
// reports whether ss changed.
func (e *engine) baselineVerifier(sp plan.Spec, stage plan.Stage, ss *state.SpecState) bool {
	files := guardedFiles(e.root, stage.Criteria)
	key := fmt.Sprintf("%s@%s@%s", stage.Name, sp.Hash, strings.Join(files, ","))
	now := hashFiles(e.root, files)
	switch {
	case ss.VerifierKey != key:
		ss.VerifierKey, ss.VerifierHashes, ss.VerifierSeen = key, now, maps.Clone(now)
		if len(files) == 0 {
			ss.VerifierHashes, ss.VerifierSeen = nil, nil
		}
		if len(files) > 0 {
			e.log.Info().Str("spec", sp.Path).Str("stage", stage.Name).Strs("files", files).Msg("verifier guard: recorded the verification files")
		}
		return true
	case !maps.Equal(now, ss.VerifierSeen):
		e.log.Warn().Str("spec", sp.Path).Strs("files", differing(ss.VerifierSeen, now)).Msg("verifier guard: verification files changed outside ralph-ci's rotations; taking them as the new baseline")
		ss.VerifierHashes, ss.VerifierSeen = now, maps.Clone(now)
		return true
	}
	return false
}

// tamperedVerifier returns the guarded files that differ from the
// baseline after a rotation, and records what the rotation left.
func (e *engine) tamperedVerifier(ss *state.SpecState) []string {
	if len(ss.VerifierHashes) == 0 {
		return nil
	}
	now := hashFiles(e.root, slices.Sorted(maps.Keys(ss.VerifierHashes)))
	ss.VerifierSeen = now
	return differing(ss.VerifierHashes, now)
}

func differing(a, b map[string]string) []string {
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
