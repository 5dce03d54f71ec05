package scheduler

import (
	"slices"
	"strings"
	"testing"
)

// Outcomes used by the scripted agents.
var (
	continueChanged = outcome{"CONTINUE", true}
	rotateChanged   = outcome{"ROTATE", true}
	doneChanged     = outcome{"DONE", true}
	doneClean       = outcome{"DONE", false}
)

// assertLog compares the world's log with the expected lines and checks that
// every spec ended at 3/3.
func assertLog(t *testing.T, w *world, complete bool, want []string) {
	t.Helper()
	got := w.lines()
	if !complete {
		t.Errorf("loop did not complete")
	}
	if !slices.Equal(got, want) {
		t.Errorf("rotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range w.entries {
		if e.DoneCount != 3 && !e.Excluded {
			t.Errorf("spec %s ended at %d/3", e.Path, e.DoneCount)
		}
	}
}

// Example Execution Sequence (multi-spec-mode.md), end to end: 1. start
// with the new spec A; 2. work on A until DONE with no changes (CONTINUE
// first); 3. check for new specs; 4. otherwise select the next highest
// priority spec, B with a non-DONE status; 5. work on B until DONE with no
// changes — here new spec D appears while B is mid-work (ROTATE) and
// interrupts it; 6. continue until all specs reach 3/3. C starts complete
// and is downgraded to 2/3 by A's first change (propagation); A, once 3/3,
// is downgraded again when B fixes a bug in R10.
func TestSimulationExampleExecutionSequence(t *testing.T) {
	agent := scripted(t, map[string][]outcome{
		"A": {continueChanged, doneChanged, doneClean, doneClean, doneClean},
		"B": {rotateChanged, doneChanged, doneClean, doneChanged, doneClean, doneClean},
		"C": {doneClean},
		"D": {doneChanged, doneClean, doneClean},
	})
	w := newWorld(t, agent,
		Entry{Path: "A", New: true},
		Entry{Path: "B", LastStatus: "CONTINUE", ModifiedFiles: true},
		Entry{Path: "C", LastStatus: "DONE", DoneCount: 3},
	)
	w.before(4, func(w *world) { w.add("D") })
	complete := w.run(50)
	assertLog(t, w, complete, []string{
		"R1 A CONTINUE changed -> 0/3 | A 0/3, B 0/3, C 2/3",
		"R2 A DONE changed -> 1/3 | A 1/3, B 0/3, C 2/3",
		"R3 A DONE -> 2/3 | A 2/3, B 0/3, C 2/3",
		"R4 B ROTATE changed -> 0/3 | A 2/3, B 0/3, C 2/3",
		"R5 D DONE changed -> 1/3 | A 2/3, B 0/3, C 2/3, D 1/3",
		"R6 D DONE -> 2/3 | A 2/3, B 0/3, C 2/3, D 2/3",
		"R7 B DONE changed -> 1/3 | A 2/3, B 1/3, C 2/3, D 2/3",
		"R8 B DONE -> 2/3 | A 2/3, B 2/3, C 2/3, D 2/3",
		"R9 A DONE -> 3/3 | A 3/3, B 2/3, C 2/3, D 2/3",
		"R10 B DONE changed -> 1/3 | A 2/3, B 1/3, C 2/3, D 2/3",
		"R11 B DONE -> 2/3 | A 2/3, B 2/3, C 2/3, D 2/3",
		"R12 A DONE -> 3/3 | A 3/3, B 2/3, C 2/3, D 2/3",
		"R13 B DONE -> 3/3 | A 3/3, B 3/3, C 2/3, D 2/3",
		"R14 C DONE -> 3/3 | A 3/3, B 3/3, C 3/3, D 2/3",
		"R15 D DONE -> 3/3 | A 3/3, B 3/3, C 3/3, D 3/3",
	})
}

// Modified specs do not interrupt: M is edited while X is working (R2); X
// keeps running until DONE without changes, then M — tier 2 — wins the
// switch although it is at 2/3, ahead of the working spec W. W's fix in R5
// downgrades M from 3/3 to 2/3, so M is verified once more in R7. A restart
// after R4 resumes from the highest-priority spec, as runtime selection
// would.
func TestSimulationModifiedSpecWaitsAndRestartResumes(t *testing.T) {
	agent := scripted(t, map[string][]outcome{
		"X": {continueChanged, doneChanged, doneClean, doneClean},
		"M": {doneClean, doneClean},
		"W": {doneChanged, doneClean, doneClean},
	})
	w := newWorld(t, agent,
		Entry{Path: "M", LastStatus: "DONE", DoneCount: 3},
		Entry{Path: "W", LastStatus: "STUCK"},
		Entry{Path: "X", New: true},
	)
	w.before(1, func(w *world) { w.modify("M") })
	w.before(4, (*world).restart)
	complete := w.run(50)
	assertLog(t, w, complete, []string{
		"R1 X CONTINUE changed -> 0/3 | M 2/3, W 0/3, X 0/3",
		"R2 X DONE changed -> 1/3 | M 2/3, W 0/3, X 1/3",
		"R3 X DONE -> 2/3 | M 2/3, W 0/3, X 2/3",
		"R4 M DONE -> 3/3 | M 3/3, W 0/3, X 2/3",
		"R5 W DONE changed -> 1/3 | M 2/3, W 1/3, X 2/3",
		"R6 W DONE -> 2/3 | M 2/3, W 2/3, X 2/3",
		"R7 M DONE -> 3/3 | M 3/3, W 2/3, X 2/3",
		"R8 W DONE -> 3/3 | M 3/3, W 3/3, X 2/3",
		"R9 X DONE -> 3/3 | M 3/3, W 3/3, X 3/3",
	})
}
