package layers

import (
	"maps"
	"slices"

	"github.com/ralph-ci/ralph-ci/schema"
)

// The verifier guard's facts in one call each: the engine hands over what
// it knows (the stage, the spec, the saved baseline) and a Tree to read
// through, and gets back everything it acts on, before a rotation
// ([GuardBefore]) and after it ([GuardAfter]).

// GuardScope is what a stage's guard covers, as the engine knows it.
type GuardScope struct {
	Stage    string // the stage's name
	Spec     string // the spec's repo-relative path ("" for none)
	SpecHash string // the spec's content hash, for the baseline's key
	Config   string // the config file's repo-relative path ("" outside the repository)
	Criteria schema.Criteria
	// Root is the repository's directory, where the verification
	// commands run ([Reporting]).
	Root string
}

// Saved is the guard's state from earlier rotations.
type Saved struct {
	Key     string            // the baseline's key ([GuardKey]; "" when none was recorded)
	Seen    map[string]string // the hashes the last rotation left
	Resumed bool              // the rotation about to run is an interrupted one run again
}

// Before is what the guard finds before a rotation.
type Before struct {
	Items   []string          // what the guard covers now ([GuardItems]), sorted
	Rebase  Rebasing          // what to do with the baseline
	Key     string            // the key of a new baseline (RebaseNew)
	Held    map[string]string // the hashes of Items in the working tree (RebaseNew)
	Now     map[string]string // the hashes of Items and of the seen items
	Moved   []string          // the items changed between rotations (RebaseMoved)
	Adopted map[string]string // the baseline that adopts them (RebaseMoved, [Adopt])
	// Released are the items the baseline no longer holds because a
	// person changed the criteria between rotations (RebaseMoved,
	// [Relist]), sorted.
	Released []string
	// Reporting are the configs whose run gives the stage's test
	// inventory (RebaseNew, [Reporting]).
	Reporting []schema.VerificationConfig
}

// GuardBefore gathers the guard's facts before a rotation: what it
// covers, their hashes (read through t, [Hash]), and what happens to the
// baseline, with what a new or moved baseline needs.
func GuardBefore(t Tree, s GuardScope, saved Saved, baseline map[string]string) Before {
	b := Before{Items: s.items(t)}
	b.Now = Hash(t, union(b.Items, saved.Seen))
	b.Rebase = Rebase(s.Stage, saved.Key, saved.Resumed, saved.Seen, b.Now)
	switch b.Rebase {
	case RebaseNew:
		b.Key = GuardKey(s.Stage, s.SpecHash, b.Items)
		b.Held = make(map[string]string, len(b.Items))
		for _, item := range b.Items {
			b.Held[item] = b.Now[item]
		}
		b.Reporting = Reporting(s.Criteria, s.Root)
	case RebaseMoved:
		b.Moved = Differing(saved.Seen, Restrict(b.Now, saved.Seen))
		b.Adopted = Adopt(baseline, saved.Seen, b.Now)
		if s.criteriaMoved(b.Moved) {
			b.Adopted, b.Released = Relist(t, b.Adopted, b.Items, s.Criteria)
		}
	}
	return b
}

// criteriaMoved tells whether moved holds the spec's front matter or the
// config: what decides what the guard covers changed between rotations.
func (s GuardScope) criteriaMoved(moved []string) bool {
	return slices.ContainsFunc(moved, func(item string) bool {
		return s.Spec != "" && item == s.Spec+FrontMatterItem || s.Config != "" && item == s.Config
	})
}

// Relist is the baseline after a person changed the criteria between
// rotations (a change of mind: allow_test_changes set, a verification
// command replaced): it keeps what the guard covers now (items) and
// releases the rest, which the old criteria alone guarded, so that the
// new criteria take effect at the next rotation. A file of the baseline
// that is missing now stays guarded unless it is a test file the stage
// may now change: deleting a guarded file is not undone by a change of
// the criteria that still guards its kind. The items kept keep their
// baseline hash: an edit a rotation made and the guard rejected is not
// adopted.
func Relist(t Tree, baseline map[string]string, items []string, crit schema.Criteria) (kept map[string]string, released []string) {
	guarded := make(map[string]bool, len(items))
	for _, item := range items {
		guarded[item] = true
	}
	kept = make(map[string]string, len(baseline))
	for item, h := range baseline {
		file, _ := ItemFile(item)
		if guarded[item] || !t.IsFile(file) && !(crit.AllowTestChanges && IsTestFile(file)) {
			kept[item] = h
			continue
		}
		released = append(released, item)
	}
	slices.Sort(released)
	return kept, released
}

// GuardAfter hashes, after a rotation, the baseline's items and the ones
// guarded now, and finds the test files the rotation added that can stop
// the existing ones from running ([Stops]). Both are nil when the
// baseline is empty: the spec guards nothing.
func GuardAfter(t Tree, s GuardScope, baseline map[string]string) (now, stops map[string]string) {
	if len(baseline) == 0 {
		return nil, nil
	}
	now = Hash(t, union(s.items(t), baseline))
	return now, Stops(t, baseline, now, s.Criteria.AllowTestChanges)
}

func (s GuardScope) items(t Tree) []string {
	return GuardItems(t, s.Spec, s.Config, s.Criteria)
}

// Hash returns the sha256 of each item, read through t ("" when its file
// is missing): a whole file's, or that of the part of a file the item
// hashes ([ItemFile], [ItemContent]).
func Hash(t Tree, items []string) map[string]string {
	out := make(map[string]string, len(items))
	for _, item := range items {
		if f, _, ok := TestsPath(item); ok {
			out[item] = unitSet(t, f)
			continue
		}
		file, limit := ItemFile(item)
		out[item] = t.Sum(file, limit, func(content []byte) []byte { return ItemContent(item, content) })
	}
	return out
}

// union is items and the keys of m, sorted, without duplicates.
func union(items []string, m map[string]string) []string {
	out := append(slices.Collect(maps.Keys(m)), items...)
	slices.Sort(out)
	return slices.Compact(out)
}
