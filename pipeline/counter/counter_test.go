package counter

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// testCase is one rotation of the active spec: the counter before it, the
// status the agent returned, whether tracked files changed, and the counter
// expected after it.
type testCase struct {
	name    string
	current int
	status  status.Status
	changed bool
	want    int
}

// run checks every case against Next, mapping the status through IsDone the
// way the loop does.
func run(t *testing.T, cases []testCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Next(tc.current, IsDone(tc.status), tc.changed)
			if got != tc.want {
				t.Errorf("Next(%d, %q done=%v, changed=%v) = %s, want %s",
					tc.current, tc.status, IsDone(tc.status), tc.changed, String(got), String(tc.want))
			}
		})
	}
}

// Increment Rules: the counter increments when the agent returns DONE and no
// tracked files were changed during the rotation.
// Acceptance: "increments only on DONE status without file changes".
func TestNextIncrementsOnDoneWithoutChanges(t *testing.T) {
	run(t, []testCase{
		{name: "0/3 to 1/3", current: 0, status: "DONE", want: 1},
		{name: "1/3 to 2/3", current: 1, status: "DONE", want: 2},
		{name: "2/3 to 3/3", current: 2, status: "DONE", want: 3},
	})
}

// Acceptance: "never exceeds 3/3" — DONE without changes at 3/3 stays 3/3,
// also when the saved value was hand-edited above the maximum.
func TestNextNeverExceedsMax(t *testing.T) {
	run(t, []testCase{
		{name: "3/3 stays", current: 3, status: "DONE", want: 3},
		{name: "hand-edited 4", current: 4, status: "DONE", want: 3},
		{name: "hand-edited 100", current: 100, status: "DONE", want: 3},
	})
	for cur := -5; cur <= 10; cur++ {
		for _, done := range []bool{false, true} {
			for _, changed := range []bool{false, true} {
				if got := Next(cur, done, changed); got < 0 || got > Max {
					t.Errorf("Next(%d, %v, %v) = %d, outside 0..%d", cur, done, changed, got, Max)
				}
			}
		}
	}
}

// Reset to 1/3: when the agent returns DONE and tracked files were changed.
// Acceptance: "resets to 1/3 on DONE status with file changes".
func TestNextResetsToOneOnDoneWithChanges(t *testing.T) {
	run(t, []testCase{
		{name: "from 0/3", current: 0, status: "DONE", changed: true, want: 1},
		{name: "from 1/3", current: 1, status: "DONE", changed: true, want: 1},
		{name: "from 2/3", current: 2, status: "DONE", changed: true, want: 1},
		{name: "from 3/3", current: 3, status: "DONE", changed: true, want: 1},
		{name: "TASK_COMPLETE is DONE", current: 2, status: "TASK_COMPLETE", changed: true, want: 1},
	})
}

// Reset to 0/3: when the agent returns a non-DONE status (CONTINUE, ROTATE,
// STUCK; also no status or an unknown one) and tracked files were changed.
// Acceptance: "resets to 0/3 on non-DONE with file changes".
func TestNextResetsToZeroOnNonDoneWithChanges(t *testing.T) {
	run(t, []testCase{
		{name: "CONTINUE from 2/3", current: 2, status: "CONTINUE", changed: true, want: 0},
		{name: "ROTATE from 3/3", current: 3, status: "ROTATE", changed: true, want: 0},
		{name: "STUCK from 1/3", current: 1, status: "STUCK", changed: true, want: 0},
		{name: "no status from 2/3", current: 2, status: "", changed: true, want: 0},
		{name: "NONE from 1/3", current: 1, status: "NONE", changed: true, want: 0},
		{name: "unknown from 3/3", current: 3, status: "BANANA", changed: true, want: 0},
		{name: "lower-case done from 2/3", current: 2, status: "done", changed: true, want: 0},
		{name: "CONTINUE from 0/3", current: 0, status: "CONTINUE", changed: true, want: 0},
	})
}

// No Change: the counter remains unchanged when the agent returns a non-DONE
// status and no tracked files were changed.
// Acceptance: "unchanged on non-DONE without file changes".
func TestNextUnchangedOnNonDoneWithoutChanges(t *testing.T) {
	run(t, []testCase{
		{name: "CONTINUE at 0/3", current: 0, status: "CONTINUE", want: 0},
		{name: "ROTATE at 2/3", current: 2, status: "ROTATE", want: 2},
		{name: "STUCK at 1/3", current: 1, status: "STUCK", want: 1},
		{name: "no status at 3/3", current: 3, status: "", want: 3},
		{name: "unknown at 2/3", current: 2, status: "WHATEVER", want: 2},
	})
}

// A hand-edited state file may hold any int; Next clamps it before applying
// the rules (so "unchanged" yields the clamped value).
func TestNextClampsOutOfRangeInput(t *testing.T) {
	run(t, []testCase{
		{name: "negative unchanged becomes 0/3", current: -2, status: "ROTATE", want: 0},
		{name: "negative increments from 0/3", current: -2, status: "DONE", want: 1},
		{name: "too big unchanged becomes 3/3", current: 9, status: "CONTINUE", want: 3},
	})
}

// Only DONE (and its alias TASK_COMPLETE) counts as DONE; the note in the
// brief: no status and unknown statuses are non-DONE.
func TestIsDoneOnlyForDoneAndTaskComplete(t *testing.T) {
	for status, want := range map[status.Status]bool{
		"DONE": true, "TASK_COMPLETE": true,
		"CONTINUE": false, "ROTATE": false, "STUCK": false, "": false,
		"NONE": false, "done": false, " DONE": false, "FINISHED": false,
	} {
		if got := IsDone(status); got != want {
			t.Errorf("IsDone(%q) = %v, want %v", status, got, want)
		}
	}
}

func TestClampBringsHandEditedValuesIntoRange(t *testing.T) {
	for in, want := range map[int]int{-7: 0, -1: 0, 0: 0, 1: 1, 2: 2, 3: 3, 4: 3, 42: 3} {
		if got := Clamp(in); got != want {
			t.Errorf("Clamp(%d) = %d, want %d", in, got, want)
		}
	}
}

// Counter States: only 3/3 means the spec is complete.
func TestCompleteOnlyAtThreeOfThree(t *testing.T) {
	for in, want := range map[int]bool{-1: false, 0: false, 1: false, 2: false, 3: true, 5: true} {
		if got := Complete(in); got != want {
			t.Errorf("Complete(%d) = %v, want %v", in, got, want)
		}
	}
}

func TestStringFormatsAsNOfThree(t *testing.T) {
	for in, want := range map[int]string{0: "0/3", 1: "1/3", 2: "2/3", 3: "3/3", -1: "0/3", 8: "3/3"} {
		if got := String(in); got != want {
			t.Errorf("String(%d) = %q, want %q", in, got, want)
		}
	}
}

// Acceptance: "counter starts at 0/3 for new specs" — a spec missing from
// the matrix starts at Initial (0/3) before the rotation is applied.
func TestApplyStartsNewSpecAtZero(t *testing.T) {
	if Initial != 0 {
		t.Fatalf("Initial = %d, want 0", Initial)
	}
	for _, tc := range []struct {
		name          string
		done, changed bool
		want          int
	}{
		{"non-DONE, no changes stays 0/3", false, false, 0},
		{"DONE, no changes goes 0/3 to 1/3", true, false, 1},
		{"DONE with changes 1/3", true, true, 1},
		{"non-DONE with changes 0/3", false, true, 0},
	} {
		got := Apply(map[string]int{"other.spec.md": 2}, "new.spec.md", tc.done, tc.changed)
		if got["new.spec.md"] != tc.want {
			t.Errorf("%s: new spec = %s, want %s", tc.name, String(got["new.spec.md"]), String(tc.want))
		}
	}
}

// Acceptance: "persists across restarts" is the caller's job; the counter is
// a plain int, so a matrix saved and loaded mid-run (here through JSON, as
// in .ralph/state.json) continues exactly like an uninterrupted run.
func TestCounterPersistsAcrossRestartAsPlainInt(t *testing.T) {
	steps := []struct {
		active        string
		done, changed bool
	}{
		{"a", true, true}, {"a", true, false}, {"b", false, true}, {"b", true, false},
		{"a", true, false}, {"a", true, false}, {"b", true, false},
	}
	play := func(counts map[string]int, from, to int) map[string]int {
		for _, s := range steps[from:to] {
			counts = Apply(counts, s.active, s.done, s.changed)
		}
		return counts
	}
	straight := play(map[string]int{}, 0, len(steps))

	saved, err := json.Marshal(play(map[string]int{}, 0, 3))
	if err != nil {
		t.Fatal(err)
	}
	var loaded map[string]int
	if err := json.Unmarshal(saved, &loaded); err != nil {
		t.Fatal(err)
	}
	resumed := play(loaded, 3, len(steps))
	if !maps.Equal(straight, resumed) {
		t.Errorf("resumed run %v, uninterrupted run %v", resumed, straight)
	}
}

// Step is Apply for one counter: the active spec's by Next, another's by
// Propagate only when files changed, and otherwise exactly as it was
// (a hand-edited 7 is not even clamped).
func TestStep(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		n                     int
		active, done, changed bool
		want                  int
	}{
		{"active DONE clean", 1, true, true, false, 2},
		{"active DONE with changes", 3, true, true, true, 1},
		{"active non-DONE with changes", 2, true, false, true, 0},
		{"active non-DONE clean, clamped", 7, true, false, false, 3},
		{"other after changes", 3, false, true, true, 2},
		{"other below 3/3 after changes", 1, false, false, true, 1},
		{"other untouched", 7, false, true, false, 7},
	} {
		if got := Step(tc.n, tc.active, tc.done, tc.changed); got != tc.want {
			t.Errorf("%s: Step(%d) = %d, want %d", tc.name, tc.n, got, tc.want)
		}
		counts := map[string]int{"a": tc.n, "b": 0}
		active := "a"
		if !tc.active {
			active = "b"
		}
		if got := Apply(counts, active, tc.done, tc.changed)["a"]; got != tc.want {
			t.Errorf("%s: Apply gives %d, Step %d", tc.name, got, tc.want)
		}
	}
}
