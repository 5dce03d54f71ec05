package counter

import (
	"strconv"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// Max is the counter value at which a spec is complete (3/3): DONE reported
// and then verified twice without any tracked file changing.
const Max = 3

// Initial is the counter of a spec that has no saved state yet (0/3).
const Initial = 0

// IsDone reports whether an agent status counts as DONE for the counter:
// [status.Status.Done]. Only DONE and its alias TASK_COMPLETE do; every
// other status — CONTINUE, ROTATE, STUCK, "" (no rotation yet), NONE (the
// agent reported nothing), REJECTED, a lower-case "done" or anything
// unknown — is non-DONE.
func IsDone(st status.Status) bool { return st.Done() }

// Clamp brings n into the valid range 0..[Max]: negative values become 0
// and values above Max become Max. It exists for counters read from a state
// file that was edited by hand.
func Clamp(n int) int {
	switch {
	case n < 0:
		return 0
	case n > Max:
		return Max
	default:
		return n
	}
}

// Complete reports whether a counter is at 3/3 (after [Clamp]).
func Complete(n int) bool { return Clamp(n) == Max }

// Next returns the active spec's counter after one rotation. current is its
// counter before the rotation, done whether the agent returned DONE (see
// [IsDone]) and changed whether any tracked file changed during the
// rotation:
//
//	done && !changed  -> current+1, at most Max (increment rule)
//	done && changed   -> 1 (reset to 1/3)
//	!done && changed  -> 0 (reset to 0/3)
//	!done && !changed -> current (no change)
//
// current is clamped first, so the result is always within 0..Max.
func Next(current int, done, changed bool) int {
	current = Clamp(current)
	switch {
	case done && !changed:
		return min(current+1, Max)
	case done && changed:
		return 1
	case changed:
		return 0
	default:
		return current
	}
}

// Propagate returns the counter of a spec other than the active one after
// the active spec changed tracked files: 3/3 downgrades to 2/3 and every
// other value stays as it is (after [Clamp]). It must not be called when the
// active spec changed nothing: then other specs are left alone entirely.
func Propagate(other int) int {
	other = Clamp(other)
	if other == Max {
		return Max - 1
	}
	return other
}

// Step is what one rotation of the active spec does to the counter n of
// one spec of the matrix: [Next] for the active spec itself, [Propagate]
// for another when changed is true, and nothing (not even a clamp) to
// another when changed is false. [Apply] is Step over the whole matrix; a
// caller that keeps the counters in its own records steps them in place,
// and only the active one when changed is false.
func Step(n int, isActive, done, changed bool) int {
	switch {
	case isActive:
		return Next(n, done, changed)
	case changed:
		return Propagate(n)
	default:
		return n
	}
}

// Apply plays one rotation of the active spec on the whole matrix of
// counters (spec path -> counter) and returns the new matrix; counts itself
// is not modified. Each spec moves by [Step]; a spec missing from counts
// is new and starts at [Initial].
func Apply(counts map[string]int, active string, done, changed bool) map[string]int {
	out := make(map[string]int, len(counts)+1)
	for path, n := range counts {
		out[path] = Step(n, path == active, done, changed)
	}
	if _, ok := counts[active]; !ok {
		out[active] = Step(Initial, true, done, changed)
	}
	return out
}

// String formats a counter the way ralph shows it, e.g. "2/3". The value is
// clamped first, so a hand-edited 7 prints as "3/3".
func String(n int) string {
	return strconv.Itoa(Clamp(n)) + "/" + strconv.Itoa(Max)
}
