package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ralph-ci/ralph-ci/pipeline/changes"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/scheduler"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// specsUnchanged tells the loader which spec folders nothing happened
// in since its last load, from the work tree's watcher: a rotation lists
// them again only when something did (changes.Subtree).
func (e *engine) specsUnchanged(ctx context.Context) func(dir string) bool {
	subtrees := map[string]*changes.Subtree{}
	return func(dir string) bool {
		s, ok := subtrees[dir]
		if !ok {
			s = e.watch.Subtree(dir)
			subtrees[dir] = s
		}
		return !s.Changed(ctx)
	}
}

// rescan re-discovers the specs between rotations: added specs join the
// matrix (highest priority), removed ones are dropped from the state, and
// a spec whose content changed starts its verification over.
func (e *engine) rescan() error {
	specs, problems, err := e.loader.Load()
	if err != nil {
		return err
	}
	for _, p := range problems {
		e.log.Error().Str("problem", p.String()).Msg("spec left out of this run: fix it (ralph-ci check)")
	}
	if len(specs) == 0 {
		return errors.New("no valid spec left: run ralph-ci check")
	}
	specAt := e.specAt // the index of the previous scan still holds when the specs are the same
	if !samePaths(specs, e.specs) || len(specAt) != len(specs) {
		specAt = make(map[string]int, len(specs))
		for i, sp := range specs {
			specAt[sp.Path] = i
		}
		if e.specAt != nil { // specs that appeared since the previous scan
			for path := range specAt {
				if _, ok := e.specAt[path]; !ok {
					e.fresh[path] = true
				}
			}
		}
		e.stateAt = nil
	}
	e.specs, e.specAt = specs, specAt
	if !e.indexed() {
		e.dropGone()
	}
	for i := range e.st.Specs {
		ss := &e.st.Specs[i]
		sp := &specs[e.stateAt[i]]
		switch {
		case !e.scanned && ss.SeenHash != "" && ss.SeenHash != sp.Hash:
			// Changed since the loop last saw it, outside its rotations:
			// a person's change of mind, which the old content's
			// decisions must not outlive.
			e.log.Info().Str("spec", sp.Path).Bool("was_stuck", ss.Stuck()).Int("reject_repeats", ss.RejectRepeats).
				Msg("spec edited since the last rotation: its verification starts over; its rejection streak, stuck mark and exclusion are cleared, and the verifier guard re-lists its files if the criteria changed")
			ss.ChangeOfMind()
		case ss.LastHash != sp.Hash && ss.LastHash != "" && (ss.DoneCount != 0 || ss.Stage != "" || ss.StagesDone || ss.Excluded != ""):
			e.log.Info().Str("spec", sp.Path).Msg("spec modified: its verification starts over")
			ss.StartOver()
			ss.Excluded = "" // changed: it gets a new chance
		}
		ss.SeenHash = sp.Hash
		if ss.LastHash == sp.Hash {
			// One string for both: the next compare (here and in next's
			// entryOf, every rotation) is of two pointers, not 64 bytes
			// scattered over the heap (~0.6 ms a rotation at 10,000
			// specs, perf of bench/scale.sh's tree).
			ss.LastHash = sp.Hash
		}
	}
	e.scanned = true
	return nil
}

// indexed tells whether stateAt still pairs every entry of the state with
// its spec: the same entries in the same order as at the scan that made
// it, and specs in the same order. A rotation's state change keeps it
// (only a new spec's first rotation adds an entry), so a steady rotation
// pairs the 10,000 entries of bench/scale.sh without a map lookup (two
// of them an entry were a tenth of ralph-ci's own rotation cost there,
// perf of SECTION=rotation).
func (e *engine) indexed() bool {
	if len(e.stateAt) != len(e.st.Specs) {
		return false
	}
	for i, j := range e.stateAt {
		if j >= len(e.specs) || e.specs[j].Path != e.st.Specs[i].Path {
			return false
		}
	}
	return true
}

// entry is the state's entry of the spec at path (nil: none yet), as
// st.Spec finds it, but through the last scan's pairing while it holds
// instead of a compare of every entry's path.
func (e *engine) entry(path string) *state.SpecState {
	j, ok := e.specAt[path]
	if !ok || len(e.specAt) != len(e.specs) || !e.indexed() {
		return e.st.Spec(path)
	}
	if i := slices.Index(e.stateAt, j); i >= 0 {
		return &e.st.Specs[i]
	}
	return nil
}

// entryOrNew is entry, adding an empty one when there is none (as
// st.SpecOrNew).
func (e *engine) entryOrNew(path string) *state.SpecState {
	if ss := e.entry(path); ss != nil {
		return ss
	}
	return e.st.SpecOrNew(path)
}

// dropGone drops from the state the entries of specs no longer found (or
// another shard's), and pairs the others with their specs (stateAt).
func (e *engine) dropGone() {
	kept := e.st.Specs[:0]
	stateAt := make([]int, 0, len(e.st.Specs))
	for _, ss := range e.st.Specs {
		if j, ok := e.specAt[ss.Path]; ok {
			ss.Path = e.specs[j].Path // one string: indexed compares it at a pointer's cost
			kept = append(kept, ss)
			stateAt = append(stateAt, j)
		} else if e.loader.Only != nil {
			e.log.Debug().Str("spec", ss.Path).Msg("another shard's spec: left out of this shard's state")
		} else {
			e.log.Info().Str("spec", ss.Path).Msg("spec removed: dropped from the state")
		}
	}
	e.st.Specs, e.stateAt = kept, stateAt
}

// samePaths tells whether a and b list the same paths in the same order.
func samePaths(a, b []plan.Spec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path {
			return false
		}
	}
	return true
}

// spec is the spec at path, from the last scan.
func (e *engine) spec(path string) (plan.Spec, bool) {
	if len(e.specAt) != len(e.specs) { // specs set without a scan
		e.specAt = make(map[string]int, len(e.specs))
		for i, sp := range e.specs {
			e.specAt[sp.Path] = i
		}
	}
	if i, ok := e.specAt[path]; ok {
		return e.specs[i], true
	}
	return plan.Spec{}, false
}

// entryOf is a spec as the scheduler sees it.
func entryOf(sp plan.Spec, ss *state.SpecState) scheduler.Entry {
	if ss == nil {
		return scheduler.Entry{Path: sp.Path, New: true}
	}
	return scheduler.Entry{
		Path:          sp.Path,
		Modified:      ss.LastHash != sp.Hash,
		DoneCount:     ss.DoneCount,
		LastStatus:    ss.LastStatus,
		ModifiedFiles: ss.ModifiedFiles,
		Excluded:      ss.Excluded != "",
	}
}

// stageOf returns the stage the spec's next rotation runs and its index.
func stageOf(sp plan.Spec, ss *state.SpecState) (plan.Stage, int, error) {
	if len(sp.Stages) == 0 {
		return plan.Stage{}, 0, fmt.Errorf("%s: every stage is disabled in the config: enable at least one", sp.Path)
	}
	if ss != nil {
		for i, st := range sp.Stages {
			if st.Name == ss.Stage {
				return st, i, nil
			}
		}
	}
	return sp.Stages[0], 0, nil
}
