package run

import (
	"encoding/json"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Status is the status command: the matrix of the loop's specs as the
// state holds them (columns, or JSON), changing nothing.
func Status(j *job.Job, asJSON bool) error {
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
	job.PrintRows(j.Stdout, rows)
	return nil
}

// Reset is the reset command: every counter back to 0/3 and the
// iteration to 0, the specs' states kept, under the state's lock.
func Reset(j *job.Job) error {
	dir := state.At(j.Dir)
	lock, st, err := state.Open(dir, state.LockInfo{Command: "reset", Version: j.Version})
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := state.Save(dir, state.Reset(st)); err != nil {
		return err
	}
	j.Log.Info().Int("specs", len(st.Specs)).Msg("counters and iteration reset; spec states kept")
	return nil
}
