package engine

import (
	"errors"
	"fmt"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/scheduler"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

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
	present := map[string]bool{}
	for _, sp := range specs {
		present[sp.Path] = true
	}
	kept := e.st.Specs[:0]
	for _, ss := range e.st.Specs {
		if present[ss.Path] {
			kept = append(kept, ss)
		} else if e.loader.Only != nil {
			e.log.Debug().Str("spec", ss.Path).Msg("another shard's spec: left out of this shard's state")
		} else {
			e.log.Info().Str("spec", ss.Path).Msg("spec removed: dropped from the state")
		}
	}
	e.st.Specs = kept
	if e.known != nil { // specs that appeared since the previous scan
		for path := range present {
			if !e.known[path] {
				e.fresh[path] = true
			}
		}
	}
	e.known = present
	for _, sp := range specs {
		ss := e.st.Spec(sp.Path)
		if ss != nil && ss.LastHash != sp.Hash && ss.LastHash != "" && (ss.DoneCount != 0 || ss.Stage != "" || ss.StagesDone || ss.Excluded != "") {
			e.log.Info().Str("spec", sp.Path).Msg("spec modified: its verification starts over")
			ss.StartOver()
			ss.Excluded = "" // changed: it gets a new chance
		}
	}
	e.specs = specs
	return nil
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
