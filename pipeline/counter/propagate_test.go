package counter

import (
	"maps"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// Multi-Spec Change Propagation Rule: other specs at 3/3 downgrade to 2/3;
// other specs at 0/3, 1/3 or 2/3 remain unchanged ("other specs are not
// fully reset"). Hand-edited values are clamped first.
func TestPropagateDowngradesOnlyCompleteSpecs(t *testing.T) {
	for in, want := range map[int]int{0: 0, 1: 1, 2: 2, 3: 2, -4: 0, 7: 2} {
		if got := Propagate(in); got != want {
			t.Errorf("Propagate(%s) = %s, want %s", String(in), String(got), String(want))
		}
	}
}

// Multi-Spec Change Propagation Rule: when ANY spec causes tracked file
// changes, the active spec resets based on its own status (DONE -> 1/3,
// non-DONE -> 0/3) and others only downgrade 3/3 -> 2/3.
// Acceptance: "in multi-spec mode, when one spec changes files: active
// resets by status, others only downgrade 3/3 -> 2/3".
func TestApplyActiveResetsByStatusOthersOnlyDowngrade(t *testing.T) {
	before := map[string]int{"a": 3, "b": 2, "c": 1, "d": 0, "active": 3}
	for _, tc := range []struct {
		name   string
		status status.Status
		want   map[string]int
	}{
		{"DONE resets active to 1/3", "DONE", map[string]int{"a": 2, "b": 2, "c": 1, "d": 0, "active": 1}},
		{"CONTINUE resets active to 0/3", "CONTINUE", map[string]int{"a": 2, "b": 2, "c": 1, "d": 0, "active": 0}},
		{"ROTATE resets active to 0/3", "ROTATE", map[string]int{"a": 2, "b": 2, "c": 1, "d": 0, "active": 0}},
		{"STUCK resets active to 0/3", "STUCK", map[string]int{"a": 2, "b": 2, "c": 1, "d": 0, "active": 0}},
		{"no status resets active to 0/3", "", map[string]int{"a": 2, "b": 2, "c": 1, "d": 0, "active": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Apply(before, "active", IsDone(tc.status), true)
			if !maps.Equal(got, tc.want) {
				t.Errorf("Apply = %v, want %v", got, tc.want)
			}
		})
	}
}

// The propagation rule applies only "when ANY spec causes tracked file
// changes": a rotation without changes moves the active spec alone.
func TestApplyLeavesOthersUntouchedWithoutChanges(t *testing.T) {
	before := map[string]int{"a": 3, "b": 2, "active": 1}
	for _, status := range []status.Status{"DONE", "CONTINUE", "ROTATE", "STUCK", ""} {
		got := Apply(before, "active", IsDone(status), false)
		want := map[string]int{"a": 3, "b": 2, "active": 1}
		if IsDone(status) {
			want["active"] = 2
		}
		if !maps.Equal(got, want) {
			t.Errorf("%q without changes: Apply = %v, want %v", status, got, want)
		}
	}
}

// Acceptance: "each spec maintains its own independent counter" — a
// rotation of one spec without changes never moves another spec, and each
// spec's counter follows only its own rotations.
func TestApplyKeepsEachSpecIndependent(t *testing.T) {
	counts := map[string]int{}
	counts = Apply(counts, "a", true, true)  // a 1/3
	counts = Apply(counts, "b", false, true) // b 0/3, a stays 1/3
	counts = Apply(counts, "a", true, false) // a 2/3
	counts = Apply(counts, "b", true, false) // b 1/3
	counts = Apply(counts, "a", true, false) // a 3/3
	counts = Apply(counts, "b", false, false)
	want := map[string]int{"a": 3, "b": 1}
	if !maps.Equal(counts, want) {
		t.Errorf("counts = %v, want %v", counts, want)
	}
}

// Apply is pure: the caller's matrix is left as it was.
func TestApplyDoesNotModifyInput(t *testing.T) {
	before := map[string]int{"a": 3, "b": 9, "active": 2}
	snapshot := maps.Clone(before)
	_ = Apply(before, "active", true, true)
	_ = Apply(before, "new", false, true)
	if !maps.Equal(before, snapshot) {
		t.Errorf("input changed to %v, want %v", before, snapshot)
	}
}

// Hand-edited counters of other specs are clamped when propagation touches
// them (a changed rotation) and left as they are otherwise.
func TestApplyClampsOthersOnlyWhenPropagating(t *testing.T) {
	before := map[string]int{"big": 9, "neg": -3, "active": 0}
	got := Apply(before, "active", true, true)
	if want := (map[string]int{"big": 2, "neg": 0, "active": 1}); !maps.Equal(got, want) {
		t.Errorf("with changes: %v, want %v", got, want)
	}
	got = Apply(before, "active", true, false)
	if want := (map[string]int{"big": 9, "neg": -3, "active": 1}); !maps.Equal(got, want) {
		t.Errorf("without changes: %v, want %v", got, want)
	}
}

// Exhaustive cross-check of Apply against Next and Propagate: the active
// spec always follows Next, every other spec follows Propagate when files
// changed and stays put otherwise.
func TestApplyAgreesWithNextAndPropagate(t *testing.T) {
	for other := 0; other <= Max; other++ {
		for active := 0; active <= Max; active++ {
			for _, done := range []bool{false, true} {
				for _, changed := range []bool{false, true} {
					got := Apply(map[string]int{"o": other, "x": active}, "x", done, changed)
					wantOther := other
					if changed {
						wantOther = Propagate(other)
					}
					if got["x"] != Next(active, done, changed) || got["o"] != wantOther {
						t.Errorf("Apply(o=%d, x=%d, done=%v, changed=%v) = %v", other, active, done, changed, got)
					}
				}
			}
		}
	}
}
