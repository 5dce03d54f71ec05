package scheduler

import (
	"cmp"
	"slices"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// PromptPath is the repo-relative path of the project prompt, which sorts
// before every spec (see the package documentation).
const PromptPath = "PROMPT.md"

// Priority tiers returned by [Tier]; a lower tier runs first.
const (
	TierNew      = 1 // no saved state yet
	TierModified = 2 // content hash differs from the saved one
	TierWorking  = 3 // non-DONE, or the last rotation changed tracked files
	TierDone     = 4 // DONE without changing tracked files
)

// Entry is one spec of the matrix as the caller sees it after its latest
// scan of the spec dirs and after the state update of the last rotation.
type Entry struct {
	// Path is repo-relative and slash-separated; "PROMPT.md" sorts first.
	Path string
	// New reports that the spec has no saved state yet.
	New bool
	// Modified reports that the content hash differs from the saved one.
	Modified bool
	// DoneCount is the verification counter, 0..3 (clamped if outside).
	DoneCount int
	// LastStatus is the status of the spec's last rotation. Only
	// counter.IsDone statuses count as DONE.
	LastStatus status.Status
	// ModifiedFiles reports that the spec's last rotation changed tracked
	// files.
	ModifiedFiles bool
	// Discovered reports that the spec appeared since the previous scan of
	// this run ("if a new spec is discovered, immediately switch to it"):
	// it interrupts the current spec. Specs that were merely unprocessed
	// when the run started are New but not Discovered.
	Discovered bool
	// Excluded takes the spec out of the loop (for instance stuck too often
	// or awaiting a human): it is never picked and never blocks completion.
	Excluded bool
}

// Tier returns the priority tier of e, from [TierNew] (1, highest) to
// [TierDone] (4, lowest). New wins over Modified, which wins over the last
// status. Excluded does not affect the tier.
func Tier(e Entry) int {
	switch {
	case e.New:
		return TierNew
	case e.Modified:
		return TierModified
	case !counter.IsDone(e.LastStatus) || e.ModifiedFiles:
		return TierWorking
	default:
		return TierDone
	}
}

// ComparePaths orders two spec paths alphabetically (byte-wise) except that
// [PromptPath] comes before every other path. It returns -1, 0 or +1 like
// strings.Compare.
func ComparePaths(a, b string) int {
	switch pa, pb := a == PromptPath, b == PromptPath; {
	case pa && pb:
		return 0
	case pa:
		return -1
	case pb:
		return 1
	}
	return cmp.Compare(a, b)
}

// compare is the priority order of [Order]: by tier, inside tier 4 by lower
// verification count, then by path.
func compare(a, b Entry) int {
	ta, tb := Tier(a), Tier(b)
	if c := cmp.Compare(ta, tb); c != 0 {
		return c
	}
	if ta == TierDone {
		if c := cmp.Compare(counter.Clamp(a.DoneCount), counter.Clamp(b.DoneCount)); c != 0 {
			return c
		}
	}
	return ComparePaths(a.Path, b.Path)
}

// Order returns the entries in priority order: by [Tier]; within tier 4 by
// lower DoneCount first; otherwise, and as the tie-breaker in tier 4, by
// [ComparePaths]. The sort is stable, so entries equal in all of these keep
// their input order. The input slice is not modified; excluded entries and
// entries that need no work are kept (callers filter as they need).
func Order(entries []Entry) []Entry {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, compare)
	return out
}

// NeedsWork reports whether e still has to run: its counter is below 3/3, or
// it is new, or it is modified (a modified spec is verified again whatever
// its counter). It ignores Excluded; see [Runnable].
func NeedsWork(e Entry) bool {
	return e.New || e.Modified || !counter.Complete(e.DoneCount)
}

// Runnable reports whether [Next] may pick e: it needs work and it is not
// excluded.
func Runnable(e Entry) bool { return !e.Excluded && NeedsWork(e) }

// Next picks the spec for the next rotation. entries is the current matrix
// (after the state update of the rotation that just ended); current is the
// path of that rotation's spec, or "" on start and restart; doneNoChange
// reports whether it ended with DONE and no tracked file changed.
//
//   - current is "", not in entries, or excluded: the first [Runnable] spec
//     of [Order] (start, restart and removed specs all resume the same way).
//   - !doneNoChange: a discovered runnable spec other than current interrupts (the
//     first in Order); otherwise current stays while it is runnable, and if
//     it no longer needs work the first runnable spec of Order is picked.
//   - doneNoChange: the first runnable spec of Order other than current;
//     current itself only if it is the only runnable spec.
//
// ok is false, with path "", exactly when no entry is [Runnable] (every
// spec not excluded is at 3/3 and neither new nor modified).
//
// It makes one pass over entries, keeping the first of Order among the
// runnable ones (and among those other than current, and those
// discovered), without sorting or copying the matrix: at 10,000 specs
// the sort was a tenth of ralph-ci's own rotation cost (perf of
// bench/scale.sh, SECTION=rotation). It picks what the first runnable
// entries of Order would (TestNextPicksAsOrder).
func Next(entries []Entry, current string, doneNoChange bool) (path string, ok bool) {
	first, other, discovered := -1, -1, -1 // in entries: the first of Order runnable, and other than current, and discovered
	active, stays := false, false          // current is in entries and not excluded; and runnable
	earlier := func(i, best int) bool { return best < 0 || compare(entries[i], entries[best]) < 0 }
	for i := range entries {
		e := &entries[i]
		if e.Path == current && !e.Excluded {
			active = true
		}
		if !Runnable(*e) {
			continue
		}
		if earlier(i, first) {
			first = i
		}
		if e.Path == current {
			stays = true
			continue
		}
		if earlier(i, other) {
			other = i
		}
		if e.Discovered && earlier(i, discovered) {
			discovered = i
		}
	}
	switch {
	case first < 0:
		return "", false
	case current == "" || !active:
		return entries[first].Path, true // start, restart, removed or excluded
	case !doneNoChange && discovered >= 0:
		return entries[discovered].Path, true // newly discovered specs interrupt
	case !doneNoChange && stays:
		return current, true // keep working on the same spec
	case !doneNoChange:
		return entries[first].Path, true // current no longer needs work
	case other >= 0:
		return entries[other].Path, true
	}
	return current, true // the only runnable spec left
}
