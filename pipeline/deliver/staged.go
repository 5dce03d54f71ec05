package deliver

import (
	"sort"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
)

// indexBefore reads the index before the rotation's work is staged, when
// the commit can learn what it holds from the index (see stagedChanges);
// nil otherwise.
func indexBefore(g Git, r Rotation) []igit.IndexEntry {
	if !r.StagedKnown || r.Head == "" {
		return nil
	}
	if head, err := igit.Head(g.Dir); err != nil || head != r.Head {
		return nil // HEAD moved (the agent's commits marked): Staged is HEAD's no more
	}
	entries, err := igit.ReadIndex(g.Dir, len(r.Head))
	if err != nil || entries == nil {
		return nil
	}
	return entries
}

// stagedChanges is what git diff --cached --raw --no-renames would list
// once the work is staged, learnt from the index read before staging and
// now: a path differs from HEAD when its entry now is not HEAD's, and
// HEAD's entry is the one r.Staged names for the paths the agent staged,
// the index's before staging for every other path. ok is false when it
// cannot tell (no index read before, a conflict, an entry added with
// intent to add): the caller asks git.
func stagedChanges(g Git, r Rotation, before []igit.IndexEntry) (changes []Change, ok bool) {
	if before == nil {
		return nil, false
	}
	after, err := igit.ReadIndex(g.Dir, len(r.Head))
	if err != nil {
		return nil, false
	}
	head := map[string]Change{}
	for _, e := range before {
		if e.Stage != 0 || e.IntentToAdd {
			return nil, false
		}
		head[e.Path] = Change{Path: e.Path, Mode: e.Mode, ID: e.ID}
	}
	for _, c := range r.Staged {
		if c.Mode == "" {
			delete(head, c.Path)
		} else {
			head[c.Path] = c
		}
	}
	now := map[string]Change{}
	for _, e := range after {
		if e.Stage != 0 || e.IntentToAdd {
			return nil, false
		}
		now[e.Path] = Change{Path: e.Path, Mode: e.Mode, ID: e.ID}
	}
	for p, c := range now {
		if h, in := head[p]; !in || h.Mode != c.Mode || h.ID != c.ID {
			changes = append(changes, c)
		}
	}
	for p := range head {
		if _, in := now[p]; !in {
			changes = append(changes, Change{Path: p}) // deleted
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, true
}
