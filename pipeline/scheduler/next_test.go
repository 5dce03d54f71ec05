package scheduler

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// testCase is one call of Next: the matrix after the last rotation, the spec
// of that rotation ("" on start/restart), whether it ended DONE without file
// changes, and the expected pick.
type testCase struct {
	name         string
	entries      []Entry
	current      string
	doneNoChange bool
	want         string // "" means ok=false
}

// run checks every case against Next.
func run(t *testing.T, cases []testCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Next(tc.entries, tc.current, tc.doneNoChange)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("Next(current=%q, doneNoChange=%v) = (%q, %v), want %q", tc.current, tc.doneNoChange, got, ok, tc.want)
			}
			if want := complete(tc.entries); ok == want {
				t.Errorf("ok = %v but complete = %v", ok, want)
			}
		})
	}
}

// "Start with highest priority spec"; On Restart: "Use the same priority
// order as runtime spec selection; Resume from the highest priority spec."
func TestNextStartPicksHighestPrioritySpecNeedingWork(t *testing.T) {
	run(t, []testCase{
		{name: "new spec first", entries: []Entry{{Path: "b", LastStatus: "CONTINUE"}, {Path: "z", New: true}}, want: "z"},
		{name: "modified before working", entries: []Entry{{Path: "a", LastStatus: "CONTINUE"}, {Path: "b", Modified: true, DoneCount: 3}}, want: "b"},
		{name: "working before done", entries: []Entry{done("a", 1), {Path: "b", LastStatus: "ROTATE"}}, want: "b"},
		{name: "lowest count in tier 4", entries: []Entry{done("a", 2), done("b", 1)}, want: "b"},
		{name: "skips complete specs", entries: []Entry{done("a", 3), done("b", 2)}, want: "b"},
		{name: "PROMPT.md first", entries: []Entry{{Path: "000-a.spec.md", New: true}, {Path: "PROMPT.md", New: true}}, want: "PROMPT.md"},
	})
}

// On Restart, the pick is the one runtime selection makes when switching
// away from a spec that just completed: the same order, the same result.
func TestNextRestartPicksSameAsRuntimeOrder(t *testing.T) {
	entries := []Entry{done("c", 2), done("a", 1), {Path: "m", Modified: true, DoneCount: 2}, {Path: "w", LastStatus: "STUCK"}, done("z", 3)}
	restart, _ := Next(entries, "", false)
	runtime, _ := Next(entries, "z", true)
	if restart != "m" || runtime != restart {
		t.Errorf("restart picked %q, runtime picked %q, want both %q", restart, runtime, "m")
	}
}

// "If a spec returns CONTINUE or ROTATE, keep working on the same spec";
// STUCK, no status and unknown statuses are non-DONE and keep it too, even
// when specs of a higher tier (modified, earlier path) exist.
func TestNextKeepsCurrentAfterNonDone(t *testing.T) {
	others := []Entry{{Path: "a", Modified: true}, {Path: "b", LastStatus: "CONTINUE"}, done("c", 0)}
	var cases []testCase
	for _, status := range []status.Status{"CONTINUE", "ROTATE", "STUCK", "", "WHATEVER"} {
		clean := Entry{Path: "x", LastStatus: status, DoneCount: 2}          // counter unchanged
		changed := Entry{Path: "x", LastStatus: status, ModifiedFiles: true} // reset to 0/3
		cases = append(cases,
			testCase{name: string(status) + " without changes", entries: append([]Entry{clean}, others...), current: "x", want: "x"},
			testCase{name: string(status) + " with changes", entries: append([]Entry{changed}, others...), current: "x", want: "x"},
		)
	}
	run(t, cases)
}

// "Only switch to a different spec when current spec returns DONE with no
// file changes": DONE that changed files (counter 1/3) keeps the spec.
func TestNextKeepsCurrentAfterDoneWithChanges(t *testing.T) {
	run(t, []testCase{{
		name:    "DONE with changes",
		entries: []Entry{done("a", 1), {Path: "x", LastStatus: "DONE", ModifiedFiles: true, DoneCount: 1}},
		current: "x", want: "x",
	}})
}

// "Exception: If a new spec is discovered, immediately switch to it";
// "New specs (not yet processed) always have highest priority and interrupt
// current work." Among several new specs the first in order wins.
func TestNextNewSpecInterruptsContinue(t *testing.T) {
	run(t, []testCase{
		{name: "interrupts CONTINUE", entries: []Entry{{Path: "x", LastStatus: "CONTINUE"}, {Path: "n", New: true, Discovered: true}}, current: "x", want: "n"},
		{name: "interrupts DONE with changes", entries: []Entry{{Path: "x", LastStatus: "DONE", ModifiedFiles: true, DoneCount: 1}, {Path: "z", New: true, Discovered: true}, {Path: "y", New: true, Discovered: true}}, current: "x", want: "y"},
		{name: "unprocessed but not newly discovered spec does not interrupt", entries: []Entry{{Path: "x", LastStatus: "CONTINUE"}, {Path: "a", New: true}}, current: "x", want: "x"},
		{name: "excluded new spec does not interrupt", entries: []Entry{{Path: "x", LastStatus: "ROTATE"}, {Path: "n", New: true, Discovered: true, Excluded: true}}, current: "x", want: "x"},
		{name: "picked after DONE without changes", entries: []Entry{done("x", 2), {Path: "b", LastStatus: "STUCK"}, {Path: "n", New: true}}, current: "x", doneNoChange: true, want: "n"},
	})
}

// Modified specs are priority 2 but do not interrupt: the current spec keeps
// running until DONE without changes, then the modified spec wins the
// switch, ahead of working specs and of the current spec.
func TestNextModifiedSpecWaitsForTheNextSwitch(t *testing.T) {
	entries := []Entry{{Path: "x", LastStatus: "CONTINUE"}, {Path: "b", LastStatus: "ROTATE"}, {Path: "m", Modified: true, DoneCount: 3}}
	run(t, []testCase{{name: "no interrupt", entries: entries, current: "x", want: "x"}})
	entries[0] = done("x", 1)
	run(t, []testCase{{name: "wins the switch", entries: entries, current: "x", doneNoChange: true, want: "m"}})
}

// "When switching after DONE with no changes, prefer other specs that need
// work over the current spec" — even one with a higher count, and a
// modified spec at 3/3 needs work too.
func TestNextPrefersOtherSpecsAfterDoneWithoutChanges(t *testing.T) {
	run(t, []testCase{
		{name: "other has higher count", entries: []Entry{done("a", 1), done("b", 2)}, current: "a", doneNoChange: true, want: "b"},
		{name: "highest-priority other", entries: []Entry{done("a", 1), done("c", 2), done("b", 2), {Path: "w", LastStatus: "CONTINUE"}}, current: "a", doneNoChange: true, want: "w"},
		{name: "modified 3/3 is re-verified", entries: []Entry{done("a", 1), {Path: "m", LastStatus: "DONE", DoneCount: 3, Modified: true}}, current: "a", doneNoChange: true, want: "m"},
		{name: "complete others are skipped", entries: []Entry{done("a", 1), done("b", 3), done("c", 2)}, current: "a", doneNoChange: true, want: "c"},
	})
}

// "Only continue with the current spec if it's the only remaining spec that
// needs work (done_count < 3)."
func TestNextKeepsCurrentOnlyWhenItIsTheOnlyOneNeedingWork(t *testing.T) {
	run(t, []testCase{
		{name: "others complete", entries: []Entry{done("a", 2), done("b", 3), done("c", 3)}, current: "a", doneNoChange: true, want: "a"},
		{name: "others excluded", entries: []Entry{done("a", 2), {Path: "b", Excluded: true}}, current: "a", doneNoChange: true, want: "a"},
		{name: "current complete, another left", entries: []Entry{done("a", 3), done("b", 2)}, current: "a", doneNoChange: true, want: "b"},
	})
}

// "Complete when ALL specs reach 3/3 without file changes": ok=false.
// Excluded specs do not keep the loop alive.
func TestNextReportsCompletionWhenAllAtThree(t *testing.T) {
	run(t, []testCase{
		{name: "all 3/3 after switch", entries: []Entry{done("a", 3), done("b", 3)}, current: "b", doneNoChange: true},
		{name: "all 3/3 on restart", entries: []Entry{done("a", 3), done("b", 3)}},
		{name: "excluded at 1/3 ignored", entries: []Entry{done("a", 3), {Path: "b", DoneCount: 1, Excluded: true}}, current: "a", doneNoChange: true},
		{name: "empty matrix", entries: nil},
	})
}

// Between Iterations: removed specs are dropped from the state; when the
// current spec is gone, selection resumes as on restart.
func TestNextRemovedCurrentResumesLikeRestart(t *testing.T) {
	entries := []Entry{done("a", 1), {Path: "b", LastStatus: "ROTATE"}}
	restart, _ := Next(entries, "", false)
	run(t, []testCase{
		{name: "after CONTINUE", entries: entries, current: "gone", want: restart},
		{name: "after DONE without changes", entries: entries, current: "gone", doneNoChange: true, want: restart},
	})
}

// Excluded specs are never picked: not on start, not as a current spec that
// would otherwise stay, not as the only one left.
func TestNextNeverPicksExcludedSpecs(t *testing.T) {
	run(t, []testCase{
		{name: "excluded new spec on start", entries: []Entry{{Path: "a", New: true, Excluded: true}, done("b", 1)}, want: "b"},
		{name: "excluded current after CONTINUE", entries: []Entry{{Path: "x", LastStatus: "CONTINUE", Excluded: true}, done("b", 1)}, current: "x", want: "b"},
		{name: "excluded current after DONE", entries: []Entry{{Path: "x", LastStatus: "DONE", DoneCount: 1, Excluded: true}}, current: "x", doneNoChange: true},
	})
}

// A current spec that no longer needs work after a non-DONE rotation (a
// modified 3/3 spec re-checked with ROTATE and no changes keeps 3/3) is left
// for the first spec in order.
func TestNextLeavesCurrentThatNoLongerNeedsWork(t *testing.T) {
	run(t, []testCase{{
		name:    "ROTATE at 3/3",
		entries: []Entry{{Path: "x", LastStatus: "ROTATE", DoneCount: 3}, done("b", 2), {Path: "c", LastStatus: "STUCK"}},
		current: "x", want: "c",
	}})
}
