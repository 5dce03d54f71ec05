package run

import (
	"encoding/json"
	"path"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Status is the status command: the matrix of the loop's specs as the
// state holds them (columns, or JSON), changing nothing.
func Status(j *job.Session, asJSON bool) error {
	p, err := j.Load()
	if err != nil {
		return err
	}
	st, err := state.Load(state.At(p.Root))
	if err != nil {
		return err
	}
	rows := engine.Rows(p.Specs, st)
	if asJSON {
		enc := json.NewEncoder(j.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	engine.PrintRows(j.Stdout, rows)
	return nil
}

// Reset is the reset command: every counter back to 0/3 and the
// iteration to 0, every spec's rejection streak and stuck mark cleared,
// the specs' states kept, under the state's lock. With specs (paths
// relative to the repository root), only those specs are reset, and the
// iteration is kept.
func Reset(j *job.Session, specs []string) error {
	dir := state.At(j.Dir)
	lock, st, err := state.Open(dir, state.LockInfo{Command: "reset", Version: j.Version})
	if err != nil {
		return err
	}
	defer lock.Release()
	if len(specs) == 0 {
		if err := state.Save(dir, state.Reset(st)); err != nil {
			return err
		}
		j.Log.Info().Int("specs", len(st.Specs)).Msg("counters and iteration reset, every rejection streak and stuck mark cleared; spec states kept")
		return nil
	}
	paths := make([]string, len(specs))
	for i, s := range specs {
		paths[i] = path.Clean(filepath.ToSlash(s))
	}
	out, err := state.ResetSpecs(st, paths)
	if err != nil {
		return &exitcode.UsageError{Err: err}
	}
	if err := state.Save(dir, out); err != nil {
		return err
	}
	for _, p := range paths {
		j.Log.Info().Str("spec", p).Msgf("%s reset: counter 0/3, its rejection streak and stuck mark cleared; the iteration and the other specs kept", p)
	}
	return nil
}
