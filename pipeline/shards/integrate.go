package shards

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Folder is a saved state folder to integrate: the branch's integrated
// state (the base, Name "") or a shard's, as pipeline/deliver restores it.
type Folder struct {
	Name string
	Dir  string
	// Changed are the files that differ between the commit the state
	// describes and the integrated commit.
	Changed []string
	// Time is when the state was saved.
	Time time.Time
}

// Integrate folds the shards' state folders into the project's state
// folder dst: the shards in the order they were saved (then by name), each
// folder's state loaded, merged with the base's (Merge) and written with
// the folders' notes (Fold). It returns the shards in that order, and
// where each spec's state came from.
func Integrate(dst string, base Folder, shards []Folder) ([]Folder, []Placement, error) {
	shards = slices.Clone(shards)
	slices.SortStableFunc(shards, func(a, b Folder) int {
		return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Name, b.Name))
	})
	st, err := state.Load(state.Dir(base.Dir))
	if err != nil {
		return nil, nil, err
	}
	in := Input{State: st, Changed: base.Changed}
	var inputs []Input
	var dirs []string
	for _, sh := range shards {
		st, err := state.Load(state.Dir(sh.Dir))
		if err != nil {
			return nil, nil, fmt.Errorf("shard %s: %w", sh.Name, err)
		}
		inputs = append(inputs, Input{Name: sh.Name, State: st, Changed: sh.Changed, Time: sh.Time})
		dirs = append(dirs, sh.Dir)
	}
	merged, placed := Merge(in, inputs)
	if err := Fold(dst, base.Dir, dirs, merged); err != nil {
		return nil, nil, err
	}
	return shards, placed, nil
}
