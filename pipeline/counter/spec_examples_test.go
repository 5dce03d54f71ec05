package counter

import (
	"fmt"
	"maps"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// rotation is one scripted rotation of a single spec in the examples of
// verification-counter.md, with the counter expected after it.
type rotation struct {
	note    string
	status  status.Status
	changed bool
	want    int
}

// play runs the rotations from a new spec (0/3) and checks the counter after
// every one of them.
func play(t *testing.T, rotations []rotation) {
	t.Helper()
	n := Initial
	for i, r := range rotations {
		n = Next(n, IsDone(r.status), r.changed)
		if n != r.want {
			t.Fatalf("R%d (%s, %s, changed=%v): counter %s, want %s",
				i+1, r.note, r.status, r.changed, String(n), String(r.want))
		}
	}
}

// Example 1, Implementation + Verification: R1 implements, DONE -> 1/3; R2
// reviews, DONE (no changes) -> 2/3; R3 reviews again, DONE (no changes) ->
// 3/3.
func TestExample1ImplementationThenTwoVerifications(t *testing.T) {
	play(t, []rotation{
		{"implements", "DONE", true, 1},
		{"reviews", "DONE", false, 2},
		{"reviews again", "DONE", false, 3},
	})
}

// Example 2, Rotation without completion: R1 works, ROTATE -> 0/3
// (unchanged); R2 continues, DONE -> 1/3; R3 reviews, DONE (no changes) ->
// 2/3. R1 and R2 work on the spec, so tracked files changed in both; R1 is
// checked both ways since 0/3 stays 0/3 either way.
func TestExample2RotationWithoutCompletion(t *testing.T) {
	for _, r1Changed := range []bool{true, false} {
		t.Run(fmt.Sprintf("R1 changed=%v", r1Changed), func(t *testing.T) {
			play(t, []rotation{
				{"works", "ROTATE", r1Changed, 0},
				{"continues work", "DONE", true, 1},
				{"reviews", "DONE", false, 2},
			})
		})
	}
}

// Example 3, Found issue during verification: R1 implements, DONE -> 1/3;
// R2 reviews, finds a bug, fixes it, DONE -> 1/3 (reset due to changes); R3
// reviews, DONE (no changes) -> 2/3.
func TestExample3IssueFoundDuringVerification(t *testing.T) {
	play(t, []rotation{
		{"implements", "DONE", true, 1},
		{"finds and fixes a bug", "DONE", true, 1},
		{"reviews", "DONE", false, 2},
	})
}

// Example 4, Context exhaustion during verification: R1 DONE -> 1/3; R2 DONE
// (no changes) -> 2/3; R3 ROTATE (no changes) -> 2/3 (unchanged); R4 a
// different agent reviews, DONE (no changes) -> 3/3.
func TestExample4ContextExhaustionDuringVerification(t *testing.T) {
	play(t, []rotation{
		{"implements", "DONE", true, 1},
		{"reviews", "DONE", false, 2},
		{"context exhausted", "ROTATE", false, 2},
		{"different agent reviews", "DONE", false, 3},
	})
}

// Example 5, Selective propagation in multi-spec mode: A 3/3, B 2/3, C 0/3;
// active D works, changes files, returns DONE -> D 1/3, A 2/3, B 2/3, C 0/3.
func TestExample5SelectivePropagation(t *testing.T) {
	before := map[string]int{"A": 3, "B": 2, "C": 0}
	got := Apply(before, "D", true, true)
	want := map[string]int{"A": 2, "B": 2, "C": 0, "D": 1}
	if !maps.Equal(got, want) {
		t.Errorf("after D: %v, want %v", got, want)
	}
}

// Counter States: "3/3 verified twice without changes - spec is complete" —
// reaching 3/3 always takes one DONE and then two DONE rotations without
// changes; any rotation with changes in between starts the verification over.
func TestCompleteNeedsTwoCleanVerificationsAfterLastChange(t *testing.T) {
	play(t, []rotation{
		{"implements", "DONE", true, 1},
		{"verifies", "DONE", false, 2},
		{"fixes during second verification", "CONTINUE", true, 0},
		{"done after fix", "DONE", true, 1},
		{"verifies", "DONE", false, 2},
		{"verifies again", "DONE", false, 3},
		{"verifies once more", "DONE", false, 3},
	})
}

func ExampleNext() {
	n := Initial
	n = Next(n, true, true) // implements, DONE
	fmt.Println(String(n))
	n = Next(n, true, false) // reviews, DONE without changes
	fmt.Println(String(n))
	n = Next(n, false, false) // ROTATE without changes
	fmt.Println(String(n))
	n = Next(n, true, false) // reviews again
	fmt.Println(String(n))
	// Output:
	// 1/3
	// 2/3
	// 2/3
	// 3/3
}

func ExampleApply() {
	counts := map[string]int{"A": 3, "B": 2, "C": 0}
	counts = Apply(counts, "D", IsDone("DONE"), true)
	for _, spec := range []string{"A", "B", "C", "D"} {
		fmt.Println(spec, String(counts[spec]))
	}
	// Output:
	// A 2/3
	// B 2/3
	// C 0/3
	// D 1/3
}
