package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// The verifier tamper guard's I/O: which guarded items exist, and their
// hashes. What they mean is decided by package layers.

func (e *engine) isFile(rel string) bool {
	t, err := safefile.OpenTree(e.root)
	if err != nil {
		return false
	}
	defer t.Close()
	fi, err := t.Stat(filepath.Join(e.root, filepath.FromSlash(rel)))
	e.noteRefused(rel, err)
	return err == nil && fi.Mode().IsRegular()
}

// tree is the working tree as the guard reads it (layers.Tree): bounded,
// non-blocking reads under the root.
type tree struct{ e *engine }

var _ layers.Tree = tree{}

func (t tree) IsFile(rel string) bool { return t.e.isFile(rel) }
func (t tree) Files() []string        { return t.e.files() }
func (t tree) Read(rel string, limit int64) ([]byte, error) {
	return t.e.scanTree(rel, limit)
}

func (t tree) Sum(rel string, limit int64, part func([]byte) []byte) string {
	if limit == 0 {
		return t.e.hashFile(rel)
	}
	b, err := t.e.scanTree(rel, limit)
	if err != nil {
		return missingOr(err)
	}
	sum := sha256.Sum256(part(b))
	return hex.EncodeToString(sum[:])
}

// guardScope is what the stage's guard covers (layers.GuardScope).
func (e *engine) guardScope(sp plan.Spec, stage plan.Stage) layers.GuardScope {
	config := ""
	if p := e.opts.Project; p != nil && p.ConfigPath != "" && !filepath.IsAbs(p.ConfigPath) {
		config = filepath.ToSlash(p.ConfigPath)
	}
	return layers.GuardScope{Stage: stage.Name, Spec: sp.Path, SpecHash: sp.Hash, Config: config, Criteria: stage.Criteria, Root: e.root}
}

func (e *engine) hashFile(rel string) string {
	t, err := safefile.OpenTree(e.root)
	if err != nil {
		return missingOr(err)
	}
	defer t.Close()
	f, _, err := t.Open(filepath.Join(e.root, filepath.FromSlash(rel)))
	e.noteRefused(rel, err)
	if err != nil {
		return missingOr(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// missingOr is the hash of a file that could not be read: "" when it is
// missing, else the error.
func missingOr(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return "unreadable: " + err.Error()
}

// baselineVerifier records the guard's baseline before a rotation runs,
// when the stage starts, and adopts the changes made to guarded items
// between rotations (never those of an interrupted rotation run again,
// e.resuming). It reports whether ss changed.
func (e *engine) baselineVerifier(ctx context.Context, sp plan.Spec, stage plan.Stage, ss *state.SpecState) bool {
	scope, saved := e.guardScope(sp, stage), layers.Saved{Key: ss.VerifierKey, Seen: ss.VerifierSeen, Resumed: e.resuming}
	f := layers.GuardBefore(tree{e}, scope, saved, ss.VerifierHashes)
	switch f.Rebase {
	case layers.RebaseNew:
		wt := f.Held
		loop := e.loopTrusted(context.Background()) // one walk for the hashes and the tree
		base := e.trustedHashes(context.Background(), loop, stage.Criteria, maps.Clone(wt))
		ss.RecordVerifier(f.Key, base)
		if len(base) > 0 { // what the working tree holds, for the next Rebase
			ss.VerifierSeen = wt
			for k := range base {
				if _, ok := wt[k]; !ok {
					wt[k] = ""
				}
			}
		}
		ss.VerifierTree = gitHeadTree(context.Background(), e.root, loop)
		ss.VerifierTests = e.inventory(ctx, sp, stage, f.Reporting)
		if len(base) > 0 {
			e.log.Info().Str("spec", sp.Path).Str("stage", stage.Name).Strs("files", slices.Sorted(maps.Keys(base))).Msg("verifier guard: recorded the verification files")
		}
		return true
	case layers.RebaseMoved:
		e.log.Warn().Str("spec", sp.Path).Strs("files", f.Moved).Msg("verifier guard: verification files changed outside ralph-ci's rotations; taking them as the new baseline")
		if len(f.Released) > 0 {
			e.log.Info().Str("spec", sp.Path).Str("stage", stage.Name).Strs("files", f.Released).Msg("verifier guard: the criteria changed between rotations; these files are no longer guarded")
		}
		commit, tests := ss.VerifierTree, ss.VerifierTests
		ss.RecordVerifier(ss.VerifierKey, f.Adopted)
		ss.VerifierSeen, ss.VerifierTree, ss.VerifierTests = f.Now, commit, tests
		return true
	}
	return false
}

// guardAfter hashes, after a rotation, the baseline's items and the ones
// guarded now (nil when the spec guards none), and finds the test files
// the rotation added that can stop the existing ones from running
// (layers.GuardAfter).
func (e *engine) guardAfter(sp plan.Spec, stage plan.Stage, ss state.SpecState) (now map[string]string, stops map[string]string) {
	scope := e.guardScope(sp, stage)
	return layers.GuardAfter(tree{e}, scope, ss.VerifierHashes)
}
