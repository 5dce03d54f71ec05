package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The verifier tamper guard's I/O: which guarded files exist, and their
// hashes. What they mean is decided by package layers.

// guardedFiles lists the repo-relative files the stage's verification
// runs (layers.GuardedFiles), looking them up under root.
func guardedFiles(root string, crit schema.Criteria) []string {
	return layers.GuardedFiles(crit, func(rel string) bool {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil && fi.Mode().IsRegular()
	})
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
	key := layers.GuardKey(stage.Name, sp.Hash, files)
	now := hashFiles(e.root, files)
	switch layers.Rebase(key, ss.VerifierKey, ss.VerifierSeen, now) {
	case layers.RebaseNew:
		ss.RecordVerifier(key, now)
		if len(files) > 0 {
			e.log.Info().Str("spec", sp.Path).Str("stage", stage.Name).Strs("files", files).Msg("verifier guard: recorded the verification files")
		}
		return true
	case layers.RebaseMoved:
		e.log.Warn().Str("spec", sp.Path).Strs("files", layers.Differing(ss.VerifierSeen, now)).Msg("verifier guard: verification files changed outside ralph-ci's rotations; taking them as the new baseline")
		ss.RecordVerifier(ss.VerifierKey, now)
		return true
	}
	return false
}

// verifierNow hashes the guarded files after a rotation (nil when the
// spec guards none).
func (e *engine) verifierNow(ss state.SpecState) map[string]string {
	if len(ss.VerifierHashes) == 0 {
		return nil
	}
	return hashFiles(e.root, slices.Sorted(maps.Keys(ss.VerifierHashes)))
}
