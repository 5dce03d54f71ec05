package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The verifier tamper guard's I/O: which guarded items exist, and their
// hashes. What they mean is decided by package layers.

// frontMatterItem names the guard item of a spec's front matter (its
// completion criteria): the spec's path with this suffix.
const frontMatterItem = " (front matter)"

// guardedFiles lists the repo-relative files the stage's verification
// runs (layers.GuardedFiles), looking them up under root.
func guardedFiles(root string, crit schema.Criteria) []string {
	return layers.GuardedFiles(crit, func(rel string) bool { return isFile(root, rel) })
}

func isFile(root, rel string) bool {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular()
}

// guardItems lists, sorted, what the stage's guard covers now: the files
// its verification runs and what those scripts source or run, the spec's front
// matter and the config file (the criteria), and the test files unless
// the stage allows test changes.
func (e *engine) guardItems(sp plan.Spec, crit schema.Criteria) []string {
	set := map[string]bool{}
	for _, f := range guardedFiles(e.root, crit) {
		set[f] = true
		b, err := safefile.Read(filepath.Join(e.root, filepath.FromSlash(f)), safefile.SourceLimit)
		if err != nil || !strings.HasPrefix(string(b), "#!") && !strings.HasSuffix(f, "sh") {
			continue
		}
		for _, s := range layers.Called(string(b)) {
			for _, rel := range []string{path.Clean(s), path.Join(path.Dir(f), s)} {
				if !strings.HasPrefix(rel, "../") && !path.IsAbs(rel) && isFile(e.root, rel) {
					set[rel] = true
				}
			}
		}
	}
	if sp.Path != "" && isFile(e.root, sp.Path) {
		set[sp.Path+frontMatterItem] = true
	}
	if p := e.opts.Project; p != nil && p.ConfigPath != "" && !filepath.IsAbs(p.ConfigPath) && isFile(e.root, filepath.ToSlash(p.ConfigPath)) {
		set[filepath.ToSlash(p.ConfigPath)] = true
	}
	files := e.files()
	if !crit.AllowTestChanges {
		for _, f := range files {
			if layers.IsTestFile(f) {
				set[f] = true
			}
		}
	}
	for _, item := range e.runnerItems(files, crit) {
		set[item] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// runnerItems lists what decides how the tests run (layers.RunnerItems),
// whatever the stage may do to tests, and the setup files the jest and
// vitest configurations name; none when the stage allows verifier
// changes.
func (e *engine) runnerItems(files []string, crit schema.Criteria) []string {
	commands, allow := layers.Commands(crit)
	if allow {
		return nil
	}
	items := layers.RunnerItems(files, commands)
	for _, item := range items {
		p, _ := layers.ViewPath(item)
		if base := path.Base(p); base != "package.json" && !strings.HasPrefix(base, "jest.config.") && !strings.HasPrefix(base, "vitest.config.") {
			continue
		}
		b, err := safefile.Read(filepath.Join(e.root, filepath.FromSlash(p)), safefile.ConfigLimit)
		if err != nil {
			continue
		}
		for _, f := range layers.SetupFiles(path.Dir(p), b) {
			if !strings.HasPrefix(f, "../") && isFile(e.root, f) {
				items = append(items, f)
			}
		}
	}
	return items
}

// hashFiles returns the sha256 of each item ("" when missing): a file's
// content, or a spec's front matter.
func hashFiles(root string, files []string) map[string]string {
	out := make(map[string]string, len(files))
	for _, f := range files {
		if spec, ok := strings.CutSuffix(f, frontMatterItem); ok {
			out[f] = hashFrontMatter(filepath.Join(root, filepath.FromSlash(spec)))
			continue
		}
		if p, ok := layers.ViewPath(f); ok {
			out[f] = hashView(f, filepath.Join(root, filepath.FromSlash(p)))
			continue
		}
		out[f] = hashFile(filepath.Join(root, filepath.FromSlash(f)))
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

// hashView hashes the view of a file's test keys (layers.View).
func hashView(item, p string) string {
	b, err := safefile.Read(p, safefile.ConfigLimit)
	if err != nil {
		return missingOr(err)
	}
	sum := sha256.Sum256(layers.View(item, b))
	return hex.EncodeToString(sum[:])
}

func hashFrontMatter(p string) string {
	src, err := safefile.Read(p, safefile.SpecLimit)
	if err != nil {
		return missingOr(err)
	}
	fm, _, _, _ := schema.SplitFrontMatter(p, src)
	sum := sha256.Sum256(fm)
	return hex.EncodeToString(sum[:])
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
		loop := trustedBase(context.Background(), e.root) // one walk for the hashes and the tree
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
	for item, h := range now {
		f, _ := layers.ViewPath(item)
		if _, old := ss.VerifierHashes[item]; old || h == "" {
			continue
		}
		if !layers.IsRunnerConfig(f) && (stage.Criteria.AllowTestChanges || !layers.IsTestFile(f)) {
			continue
		}
		if _, old := ss.VerifierHashes[f]; old && f != item {
			continue
		}
		b, err := safefile.Read(filepath.Join(e.root, filepath.FromSlash(f)), safefile.SourceLimit)
		if err != nil {
			continue
		}
		if why := layers.StopsTests(f, string(b)); why != "" {
			if stops == nil {
				stops = map[string]string{}
			}
			stops[f] = why
		}
	}
	return now, stops
}

// union is items and the keys of m, sorted, without duplicates.
func union(items []string, m map[string]string) []string {
	out := append(slices.Collect(maps.Keys(m)), items...)
	slices.Sort(out)
	return slices.Compact(out)
}
