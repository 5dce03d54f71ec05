package scheduler

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// pool is the set of spec paths random worlds draw from.
var pool = []string{"PROMPT.md", "specs/a.spec.md", "specs/b.spec.md", "specs/c/d.spec.md", "specs/e.spec.md", "z.spec.md"}

// statuses are the statuses random agents return, DONE twice as likely.
var statuses = []status.Status{"DONE", "DONE", "CONTINUE", "ROTATE", "STUCK", "", "TASK_COMPLETE", "HUH"}

// chaosRotations is how long random agents and random events last; after
// that every agent returns DONE without changes, so every run must end.
const chaosRotations = 60

// randomWorld builds a world with random saved states, a random agent and
// random re-scan events (new, modified, removed, excluded specs, restarts).
func randomWorld(t testing.TB, rng *rand.Rand) *world {
	var entries []Entry
	for _, p := range pool {
		if rng.Intn(3) == 0 {
			continue
		}
		e := Entry{Path: p, New: rng.Intn(4) == 0}
		e.Discovered = e.New && rng.Intn(2) == 0
		if !e.New {
			e.DoneCount = rng.Intn(counter.Max + 1)
			e.LastStatus = statuses[rng.Intn(len(statuses))]
			e.ModifiedFiles = rng.Intn(2) == 0
			e.Modified = rng.Intn(5) == 0
		}
		entries = append(entries, e)
	}
	rotations := 0
	agent := func(string, int) outcome {
		rotations++
		if rotations > chaosRotations {
			return doneClean
		}
		return outcome{statuses[rng.Intn(len(statuses))], rng.Intn(2) == 0}
	}
	w := newWorld(t, agent, entries...)
	for i := range chaosRotations {
		if rng.Intn(4) != 0 {
			continue
		}
		p := pool[rng.Intn(len(pool))]
		switch rng.Intn(6) {
		case 0:
			w.before(i, func(w *world) { w.add(p) })
		case 1:
			w.before(i, func(w *world) { w.modify(p) })
		case 2:
			w.before(i, func(w *world) { w.remove(p) })
		case 3:
			w.before(i, func(w *world) { w.setExcluded(p, true) })
		case 4:
			w.before(i, func(w *world) { w.setExcluded(p, false) })
		default:
			w.before(i, (*world).restart)
		}
	}
	return w
}

// TestPropertyRandomScripts plays random worlds with fixed seeds and checks
// the invariants of both rule texts after every rotation.
func TestPropertyRandomScripts(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		w := randomWorld(t, rng)
		complete := false
		for range chaosRotations + 100 {
			w.fireEvents() // so that before is the matrix Next sees
			before := slices.Clone(w.entries)
			current, doneNoChange := w.current, w.doneNoChange
			checkPureSelection(t, seed, rng, before, current, doneNoChange)
			if !w.step() {
				complete = true
				// The loop ends only when every non-excluded spec is 3/3.
				for _, e := range w.entries {
					if !e.Excluded && (e.DoneCount != counter.Max || e.New || e.Modified) {
						t.Fatalf("seed %d: loop ended with %+v", seed, e)
					}
				}
				break
			}
			checkRotation(t, seed, before, current, doneNoChange, w.log[len(w.log)-1], w.entries)
		}
		if !complete {
			t.Fatalf("seed %d: no completion after %d rotations", seed, len(w.log))
		}
	}
}

// checkPureSelection: Next does not depend on the order of its input, and a
// restart resumes from the first runnable spec of Order.
func checkPureSelection(t *testing.T, seed int64, rng *rand.Rand, entries []Entry, current string, doneNoChange bool) {
	t.Helper()
	want, wantOK := Next(entries, current, doneNoChange)
	shuffled := slices.Clone(entries)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got, ok := Next(shuffled, current, doneNoChange); got != want || ok != wantOK {
		t.Fatalf("seed %d: Next depends on input order: %q vs %q", seed, got, want)
	}
	restart, _ := Next(entries, "", false)
	first := ""
	if i := slices.IndexFunc(Order(entries), Runnable); i >= 0 {
		first = Order(entries)[i].Path
	}
	if restart != first {
		t.Fatalf("seed %d: restart picked %q, first runnable in order is %q", seed, restart, first)
	}
}

// checkRotation checks one rotation r, played on the matrix before (with
// the previous rotation's current spec and outcome), against the rules.
func checkRotation(t *testing.T, seed int64, before []Entry, current string, doneNoChange bool, r record, after []Entry) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d, %s: "+format, append([]any{seed, r}, args...)...)
	}
	byPath := func(entries []Entry, p string) (Entry, bool) {
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.Path == p })
		if i < 0 {
			return Entry{}, false
		}
		return entries[i], true
	}
	picked, ok := byPath(before, r.spec)
	if !ok || !Runnable(picked) {
		fail("picked %+v, not a runnable spec", picked)
	}
	// New specs always have the highest priority.
	if slices.ContainsFunc(before, func(e Entry) bool { return e.Discovered && Runnable(e) }) && !picked.New {
		fail("a new spec was waiting")
	}
	cur, curOK := byPath(before, current)
	others := slices.ContainsFunc(before, func(e Entry) bool { return e.Path != current && Runnable(e) })
	newOther := slices.ContainsFunc(before, func(e Entry) bool { return e.Path != current && e.Discovered && Runnable(e) })
	switch {
	case current == "" || !curOK || cur.Excluded:
	case !doneNoChange && Runnable(cur) && !newOther && r.spec != current:
		fail("left %s after a rotation that was not DONE without changes", current)
	case doneNoChange && others && r.spec == current:
		fail("stayed on %s although other specs need work", current)
	}
	done := counter.IsDone(r.outcome.status)
	for _, e := range after {
		if e.DoneCount < 0 || e.DoneCount > counter.Max {
			fail("counter %d of %s outside 0..3", e.DoneCount, e.Path)
		}
		if r.outcome.changed && e.DoneCount == counter.Max {
			fail("%s at 3/3 right after a rotation that changed files", e.Path)
		}
		old, _ := byPath(before, e.Path)
		old.Discovered = false // a scan flag, cleared once a spec was picked
		switch {
		case e.Path == r.spec:
			if e.DoneCount > counter.Clamp(old.DoneCount)+1 {
				fail("counter jumped from %d to %d", old.DoneCount, e.DoneCount)
			}
			if e.DoneCount != counter.Next(old.DoneCount, done, r.outcome.changed) {
				fail("active counter %d, want Next", e.DoneCount)
			}
		case r.outcome.changed && e.DoneCount != counter.Propagate(old.DoneCount):
			fail("%s: %d -> %d, want only 3/3 -> 2/3", e.Path, old.DoneCount, e.DoneCount)
		case !r.outcome.changed && e != old:
			fail("%s changed from %+v to %+v without being processed", e.Path, old, e)
		}
	}
}

// byOrder is Next as the package documentation states its rules: over
// the runnable entries of Order (a sort of the whole matrix), the
// implementation Next had before its single pass.
func byOrder(entries []Entry, current string, doneNoChange bool) (string, bool) {
	var runnable []Entry
	for _, e := range Order(entries) {
		if Runnable(e) {
			runnable = append(runnable, e)
		}
	}
	if len(runnable) == 0 {
		return "", false
	}
	active := slices.ContainsFunc(entries, func(e Entry) bool { return e.Path == current && !e.Excluded })
	if current == "" || !active {
		return runnable[0].Path, true
	}
	if !doneNoChange {
		for _, e := range runnable {
			if e.Discovered && e.Path != current {
				return e.Path, true
			}
		}
		if slices.ContainsFunc(runnable, func(e Entry) bool { return e.Path == current }) {
			return current, true
		}
		return runnable[0].Path, true
	}
	for _, e := range runnable {
		if e.Path != current {
			return e.Path, true
		}
	}
	return current, true
}

// TestNextPicksAsOrder: Next's single pass picks what the first runnable
// entries of Order pick, on random matrices of every kind of entry
// (duplicate paths, PROMPT.md, excluded, discovered, counters out of
// range) and every kind of current spec (none, absent, excluded, one of
// them).
func TestNextPicksAsOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	paths := append(slices.Clone(pool), "specs/a.spec.md", "000-prompt.spec.md")
	for n := range 20000 {
		var entries []Entry
		for range rng.Intn(9) {
			entries = append(entries, Entry{
				Path: paths[rng.Intn(len(paths))], New: rng.Intn(4) == 0, Modified: rng.Intn(4) == 0,
				DoneCount: rng.Intn(6) - 1, LastStatus: statuses[rng.Intn(len(statuses))],
				ModifiedFiles: rng.Intn(3) == 0, Discovered: rng.Intn(3) == 0, Excluded: rng.Intn(4) == 0,
			})
		}
		current := ""
		if k := rng.Intn(len(paths) + 1); k < len(paths) {
			current = paths[k]
		}
		doneNoChange := rng.Intn(2) == 0
		got, gotOK := Next(entries, current, doneNoChange)
		want, wantOK := byOrder(entries, current, doneNoChange)
		if got != want || gotOK != wantOK {
			t.Fatalf("case %d: Next(%+v, %q, %v) = (%q, %v), Order's pick (%q, %v)", n, entries, current, doneNoChange, got, gotOK, want, wantOK)
		}
	}
}
