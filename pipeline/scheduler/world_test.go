package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// outcome is what a scripted agent reports for one rotation.
type outcome struct {
	status  status.Status
	changed bool // tracked files changed during the rotation
}

// agentFunc scripts the agent: it returns the outcome of the visit-th
// rotation (0-based) of spec.
type agentFunc func(spec string, visit int) outcome

// scripted returns an agent that plays a fixed list of outcomes per spec and
// fails the test when a spec runs more often than scripted.
func scripted(t testing.TB, scripts map[string][]outcome) agentFunc {
	return func(spec string, visit int) outcome {
		if visit >= len(scripts[spec]) {
			t.Fatalf("spec %s ran a %d. time, only %d rotations scripted", spec, visit+1, len(scripts[spec]))
		}
		return scripts[spec][visit]
	}
}

// record is one rotation played by the world, with the matrix after it.
type record struct {
	spec    string
	outcome outcome
	counts  map[string]int
}

// String renders a record as "A DONE changed -> 1/3 | A 1/3, B 0/3".
func (r record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.spec, cmp.Or(r.outcome.status, "(none)"))
	if r.outcome.changed {
		b.WriteString(" changed")
	}
	fmt.Fprintf(&b, " -> %s |", counter.String(r.counts[r.spec]))
	keys := make([]string, 0, len(r.counts))
	for k := range r.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s %s", sep, k, counter.String(r.counts[k]))
	}
	return b.String()
}

// world is a test double of ralph's loop: it owns the matrix, asks Next for
// a spec, lets the agent run it, applies counter.Apply and the per-spec
// state update, and logs the rotation. Events scheduled before a rotation
// change the matrix like a re-scan of the spec dirs would.
type world struct {
	t            testing.TB
	entries      []Entry
	agent        agentFunc
	events       map[int][]func(*world) // before rotation i (0-based)
	visits       map[string]int
	log          []record
	current      string
	doneNoChange bool
}

// newWorld starts a loop over entries (paths must be unique).
func newWorld(t testing.TB, agent agentFunc, entries ...Entry) *world {
	return &world{t: t, entries: slices.Clone(entries), agent: agent,
		events: map[int][]func(*world){}, visits: map[string]int{}}
}

// before schedules ev to run just before rotation i (0-based).
func (w *world) before(i int, ev func(*world)) { w.events[i] = append(w.events[i], ev) }

// index returns the position of path in the matrix, or -1.
func (w *world) index(path string) int {
	return slices.IndexFunc(w.entries, func(e Entry) bool { return e.Path == path })
}

// add discovers a new spec (no saved state).
func (w *world) add(path string) {
	if w.index(path) < 0 {
		w.entries = append(w.entries, Entry{Path: path, New: true, Discovered: true})
	}
}

// modify marks path's content as changed since its state was saved.
func (w *world) modify(path string) {
	if i := w.index(path); i >= 0 && !w.entries[i].New {
		w.entries[i].Modified = true
	}
}

// remove drops path from the matrix (the spec file was deleted).
func (w *world) remove(path string) {
	w.entries = slices.DeleteFunc(w.entries, func(e Entry) bool { return e.Path == path })
}

// setExcluded takes path out of the loop, or puts it back.
func (w *world) setExcluded(path string, excluded bool) {
	if i := w.index(path); i >= 0 {
		w.entries[i].Excluded = excluded
	}
}

// restart forgets the current spec, as a fresh process reading the state
// file would.
func (w *world) restart() { w.current, w.doneNoChange = "", false }

// counts returns the verification counters of the matrix.
func (w *world) counts() map[string]int {
	m := make(map[string]int, len(w.entries))
	for _, e := range w.entries {
		m[e.Path] = e.DoneCount
	}
	return m
}

// fireEvents runs the events due before the next rotation, once.
func (w *world) fireEvents() {
	for _, ev := range w.events[len(w.log)] {
		ev(w)
	}
	delete(w.events, len(w.log))
}

// step runs the events due, then one rotation; it returns false, without
// running anything, when Next reports the loop complete.
func (w *world) step() bool {
	w.fireEvents()
	path, ok := Next(w.entries, w.current, w.doneNoChange)
	if !ok {
		return false
	}
	for i := range w.entries { // discovered since the previous scan: only once
		w.entries[i].Discovered = false
	}
	out := w.agent(path, w.visits[path])
	w.visits[path]++
	done := counter.IsDone(out.status)
	counts := counter.Apply(w.counts(), path, done, out.changed)
	for i := range w.entries {
		e := &w.entries[i]
		e.DoneCount = counts[e.Path]
		if e.Path == path { // "A spec's state updates only after it is processed."
			e.New, e.Modified = false, false
			e.LastStatus, e.ModifiedFiles = out.status, out.changed
		}
	}
	w.log = append(w.log, record{spec: path, outcome: out, counts: counts})
	w.current, w.doneNoChange = path, done && !out.changed
	return true
}

// run steps until the loop completes and reports whether it did within
// limit rotations.
func (w *world) run(limit int) bool {
	for range limit + 1 { // the last call only confirms completion
		if !w.step() {
			return true
		}
	}
	return false
}

// lines renders the log, one record per rotation, numbered from R1.
func (w *world) lines() []string {
	out := make([]string, len(w.log))
	for i, r := range w.log {
		out[i] = fmt.Sprintf("R%d %s", i+1, r)
	}
	return out
}
