package engine

import (
	"context"
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

// The verifier tamper guard's I/O: which guarded items exist, and their
// hashes. What they mean is decided by package layers.

func isFile(root, rel string) bool {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular()
}

// tree is the working tree as the guard reads it (layers.Tree): bounded,
// non-blocking reads under the root.
type tree struct{ e *engine }

var _ layers.Tree = tree{}

func (t tree) IsFile(rel string) bool { return isFile(t.e.root, rel) }
func (t tree) Files() []string        { return t.e.files() }
func (t tree) Read(rel string, limit int64) ([]byte, error) {
	return safefile.Read(filepath.Join(t.e.root, filepath.FromSlash(rel)), limit)
}

// guardItems lists, sorted, what the stage's guard covers now
// (layers.GuardItems).
func (e *engine) guardItems(sp plan.Spec, crit schema.Criteria) []string {
	config := ""
	if p := e.opts.Project; p != nil && p.ConfigPath != "" && !filepath.IsAbs(p.ConfigPath) {
		config = filepath.ToSlash(p.ConfigPath)
	}
	return layers.GuardItems(tree{e}, sp.Path, config, crit)
}

// hashFiles returns the sha256 of each item ("" when missing): a whole
// file's content, streamed, or the part of a file the item hashes
// (layers.ItemContent), read within bounds.
func hashFiles(root string, items []string) map[string]string {
	out := make(map[string]string, len(items))
	for _, item := range items {
		file, limit := layers.ItemFile(item)
		p := filepath.Join(root, filepath.FromSlash(file))
		if limit == 0 {
			out[item] = hashFile(p)
			continue
		}
		b, err := safefile.Read(p, limit)
		if err != nil {
			out[item] = missingOr(err)
			continue
		}
		sum := sha256.Sum256(layers.ItemContent(item, b))
		out[item] = hex.EncodeToString(sum[:])
	}
	return out
}

func hashFile(p string) string {
	f, _, err := safefile.OpenRegular(p)
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
	if os.IsNotExist(err) {
		return ""
	}
	return "unreadable: " + err.Error()
}

// baselineVerifier records the guard's baseline before a rotation runs,
// when the stage starts, and adopts the changes made to guarded items
// between rotations (never those of an interrupted rotation run again,
// e.resuming). It reports whether ss changed.
func (e *engine) baselineVerifier(ctx context.Context, sp plan.Spec, stage plan.Stage, ss *state.SpecState) bool {
	items := e.guardItems(sp, stage.Criteria)
	now := hashFiles(e.root, union(items, ss.VerifierSeen))
	switch layers.Rebase(stage.Name, ss.VerifierKey, e.resuming, ss.VerifierSeen, now) {
	case layers.RebaseNew:
		wt := hashFiles(e.root, items)
		loop := e.loopTrusted(context.Background()) // one walk for the hashes and the tree
		base := e.trustedHashes(context.Background(), loop, stage.Criteria, maps.Clone(wt))
		ss.RecordVerifier(layers.GuardKey(stage.Name, sp.Hash, items), base)
		if len(base) > 0 { // what the working tree holds, for the next Rebase
			ss.VerifierSeen = wt
			for k := range base {
				if _, ok := wt[k]; !ok {
					wt[k] = ""
				}
			}
		}
		ss.VerifierTree = gitHeadTree(context.Background(), e.root, loop)
		ss.VerifierTests = e.inventory(ctx, sp, stage)
		if len(base) > 0 {
			e.log.Info().Str("spec", sp.Path).Str("stage", stage.Name).Strs("files", slices.Sorted(maps.Keys(base))).Msg("verifier guard: recorded the verification files")
		}
		return true
	case layers.RebaseMoved:
		moved := layers.Differing(ss.VerifierSeen, layers.Restrict(now, ss.VerifierSeen))
		e.log.Warn().Str("spec", sp.Path).Strs("files", moved).Msg("verifier guard: verification files changed outside ralph-ci's rotations; taking them as the new baseline")
		hashes := layers.Adopt(ss.VerifierHashes, ss.VerifierSeen, now)
		commit, tests := ss.VerifierTree, ss.VerifierTests
		ss.RecordVerifier(ss.VerifierKey, hashes)
		ss.VerifierSeen, ss.VerifierTree, ss.VerifierTests = now, commit, tests
		return true
	}
	return false
}

// guardAfter hashes, after a rotation, the baseline's items and the ones
// guarded now (nil when the spec guards none), and finds the test files
// the rotation added that can stop the existing ones from running.
func (e *engine) guardAfter(sp plan.Spec, stage plan.Stage, ss state.SpecState) (now map[string]string, stops map[string]string) {
	if len(ss.VerifierHashes) == 0 {
		return nil, nil
	}
	now = hashFiles(e.root, union(e.guardItems(sp, stage.Criteria), ss.VerifierHashes))
	return now, layers.Stops(tree{e}, ss.VerifierHashes, now, stage.Criteria.AllowTestChanges)
}

// union is items and the keys of m, sorted, without duplicates.
func union(items []string, m map[string]string) []string {
	out := append(slices.Collect(maps.Keys(m)), items...)
	slices.Sort(out)
	return slices.Compact(out)
}
