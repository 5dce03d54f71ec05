package scheduler

import (
	"math/rand"
	"slices"
	"testing"
)

// paths returns the paths of entries, in order.
func paths(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Path
	}
	return out
}

// done returns a tier-4 entry: DONE without file changes at count n.
func done(path string, n int) Entry { return Entry{Path: path, LastStatus: "DONE", DoneCount: n} }

// Runtime Spec Selection, priorities 1-4: new specs, then modified specs, then
// non-DONE specs or specs that changed files, then DONE specs without
// changes. Unknown and missing statuses are non-DONE; New wins over Modified.
func TestTierFollowsRuntimePriorities(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Entry
		want int
	}{
		{"new spec", Entry{New: true}, TierNew},
		{"new and modified is new", Entry{New: true, Modified: true}, TierNew},
		{"new wins over DONE at 3/3", Entry{New: true, LastStatus: "DONE", DoneCount: 3}, TierNew},
		{"modified spec", Entry{Modified: true, LastStatus: "DONE", DoneCount: 3}, TierModified},
		{"modified CONTINUE", Entry{Modified: true, LastStatus: "CONTINUE"}, TierModified},
		{"CONTINUE", Entry{LastStatus: "CONTINUE"}, TierWorking},
		{"ROTATE", Entry{LastStatus: "ROTATE", DoneCount: 2}, TierWorking},
		{"STUCK", Entry{LastStatus: "STUCK"}, TierWorking},
		{"no status", Entry{LastStatus: ""}, TierWorking},
		{"unknown status", Entry{LastStatus: "MAYBE"}, TierWorking},
		{"DONE that changed files", Entry{LastStatus: "DONE", ModifiedFiles: true, DoneCount: 1}, TierWorking},
		{"DONE without changes", done("x", 1), TierDone},
		{"TASK_COMPLETE without changes", Entry{LastStatus: "TASK_COMPLETE", DoneCount: 2}, TierDone},
		{"excluded does not change the tier", Entry{LastStatus: "DONE", DoneCount: 2, Excluded: true}, TierDone},
	} {
		if got := Tier(tc.e); got != tc.want {
			t.Errorf("%s: Tier = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Runtime Spec Selection: tiers are strictly ordered, whatever the paths.
func TestOrderSortsByTier(t *testing.T) {
	in := []Entry{
		done("a.spec.md", 1),
		{Path: "b.spec.md", LastStatus: "STUCK"},
		{Path: "c.spec.md", Modified: true},
		{Path: "d.spec.md", New: true},
	}
	want := []string{"d.spec.md", "c.spec.md", "b.spec.md", "a.spec.md"}
	if got := paths(Order(in)); !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
}

// "Within priority tier 4 (DONE with no file changes), prefer lower
// verification count first (e.g., 1/3 before 2/3), then alphabetical by path
// as tie-breaker."
func TestOrderTierFourLowerCountFirstThenPath(t *testing.T) {
	in := []Entry{done("a.spec.md", 3), done("b.spec.md", 2), done("z.spec.md", 1), done("c.spec.md", 2), done("y.spec.md", 0)}
	want := []string{"y.spec.md", "z.spec.md", "b.spec.md", "c.spec.md", "a.spec.md"}
	if got := paths(Order(in)); !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
}

// "Within each tier, maintain stable ordering; use alphabetical by path
// unless a tier defines a more specific rule": tiers 1-3 ignore the count.
func TestOrderAlphabeticalWithinTiersOneToThree(t *testing.T) {
	in := []Entry{
		{Path: "z.spec.md", LastStatus: "CONTINUE", DoneCount: 0},
		{Path: "m.spec.md", Modified: true, DoneCount: 0},
		{Path: "b.spec.md", New: true},
		{Path: "a.spec.md", LastStatus: "DONE", ModifiedFiles: true, DoneCount: 1},
		{Path: "c.spec.md", Modified: true, DoneCount: 3},
		{Path: "a.spec.md/x", New: true},
	}
	want := []string{"a.spec.md/x", "b.spec.md", "c.spec.md", "m.spec.md", "a.spec.md", "z.spec.md"}
	if got := paths(Order(in)); !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
}

// Stable ordering: entries equal in tier, count and path keep input order;
// otherwise the result does not depend on the input order at all.
func TestOrderIsStableAndIndependentOfInputOrder(t *testing.T) {
	dup := []Entry{{Path: "a", LastStatus: "ROTATE"}, {Path: "a", LastStatus: "STUCK"}}
	if got := Order(dup); got[0].LastStatus != "ROTATE" || got[1].LastStatus != "STUCK" {
		t.Errorf("duplicates reordered: %v", got)
	}
	in := []Entry{
		{Path: "PROMPT.md", LastStatus: "CONTINUE"}, done("a", 2), done("b", 1), {Path: "c", New: true},
		{Path: "d", Modified: true}, {Path: "e"}, done("f", 3), {Path: "g", New: true},
	}
	want := paths(Order(in))
	rng := rand.New(rand.NewSource(7))
	for range 50 {
		shuffled := slices.Clone(in)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := paths(Order(shuffled)); !slices.Equal(got, want) {
			t.Fatalf("Order(%v) = %v, want %v", paths(shuffled), got, want)
		}
	}
}

func TestOrderDoesNotModifyInput(t *testing.T) {
	in := []Entry{done("b", 2), {Path: "a", New: true}}
	before := slices.Clone(in)
	_ = Order(in)
	if !slices.Equal(in, before) {
		t.Errorf("input changed to %v", in)
	}
}

// "Spec discovery sorts all specs alphabetically by full relative path;
// PROMPT.md sorts as 000-prompt.spec.md (always first)." Paths compare byte
// by byte; the root PROMPT.md precedes every other path, even ones a
// literal "000-prompt.spec.md" key would not precede.
func TestComparePathsAlphabeticalWithPromptFirst(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"a.spec.md", "b.spec.md", -1},
		{"specs/b.spec.md", "specs/a.spec.md", 1},
		{"specs/a.spec.md", "specs/a.spec.md", 0},
		{"specs/a/z.spec.md", "specs/b.spec.md", -1},
		{"B.spec.md", "a.spec.md", -1}, // byte-wise: upper case first
		{"PROMPT.md", "000-a.spec.md", -1},
		{"PROMPT.md", ".ralph/a.spec.md", -1},
		{"PROMPT.md", "-a.spec.md", -1},
		{"a.spec.md", "PROMPT.md", 1},
		{"PROMPT.md", "PROMPT.md", 0},
		{"docs/PROMPT.md", "a.spec.md", 1}, // only the root PROMPT.md is special
		{"prompt.md", "a.spec.md", 1},      // case-sensitive
	} {
		if got := ComparePaths(tc.a, tc.b); got != tc.want {
			t.Errorf("ComparePaths(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// PROMPT.md is first within its tier; the tier still decides first (a new
// spec beats a working PROMPT.md, and in tier 4 the count comes before the
// path).
func TestOrderPromptFirstWithinItsTier(t *testing.T) {
	in := []Entry{{Path: "000-a.spec.md", LastStatus: "CONTINUE"}, {Path: "PROMPT.md", LastStatus: "CONTINUE"}, {Path: "z", New: true}}
	if got, want := paths(Order(in)), []string{"z", "PROMPT.md", "000-a.spec.md"}; !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
	in = []Entry{done("a", 2), done("PROMPT.md", 2), done("b", 1)}
	if got, want := paths(Order(in)), []string{"b", "PROMPT.md", "a"}; !slices.Equal(got, want) {
		t.Errorf("tier 4 Order = %v, want %v", got, want)
	}
}

// A spec needs work while done_count < 3; new and modified specs need work
// whatever their count (a modified spec must be verified again).
func TestNeedsWorkBelowThreeOrNewOrModified(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Entry
		want bool
	}{
		{"0/3", Entry{LastStatus: "CONTINUE"}, true},
		{"2/3", done("x", 2), true},
		{"3/3", done("x", 3), false},
		{"3/3 after CONTINUE without changes", Entry{LastStatus: "CONTINUE", DoneCount: 3}, false},
		{"hand-edited 5 is 3/3", done("x", 5), false},
		{"hand-edited -1 is 0/3", done("x", -1), true},
		{"new", Entry{New: true, DoneCount: 3}, true},
		{"modified at 3/3", Entry{Modified: true, LastStatus: "DONE", DoneCount: 3}, true},
		{"excluded still needs work", Entry{Excluded: true, DoneCount: 1}, true},
	} {
		if got := NeedsWork(tc.e); got != tc.want {
			t.Errorf("%s: NeedsWork = %v, want %v", tc.name, got, tc.want)
		}
		if got := Runnable(tc.e); got != (tc.want && !tc.e.Excluded) {
			t.Errorf("%s: Runnable = %v", tc.name, got)
		}
	}
}

// "Complete when ALL specs reach 3/3 without file changes"; excluded specs
// are out of the loop and do not block completion.
func TestCompleteWhenEveryNonExcludedSpecIsAtThree(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []Entry
		want    bool
	}{
		{"all 3/3", []Entry{done("a", 3), done("b", 3)}, true},
		{"one at 2/3", []Entry{done("a", 3), done("b", 2)}, false},
		{"excluded at 0/3 ignored", []Entry{done("a", 3), {Path: "b", Excluded: true}}, true},
		{"modified 3/3 is not complete", []Entry{done("a", 3), {Path: "b", Modified: true, DoneCount: 3}}, false},
		{"new spec is not complete", []Entry{done("a", 3), {Path: "b", New: true}}, false},
		{"empty matrix", nil, true},
	} {
		if got := complete(tc.entries); got != tc.want {
			t.Errorf("%s: complete = %v, want %v", tc.name, got, tc.want)
		}
		if _, ok := Next(tc.entries, "", false); ok == tc.want {
			t.Errorf("%s: Next found a spec = %v, want %v", tc.name, ok, !tc.want)
		}
	}
}

// complete tells that the loop is over: no entry is Runnable.
func complete(entries []Entry) bool { return !slices.ContainsFunc(entries, Runnable) }
