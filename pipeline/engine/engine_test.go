package engine

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/schema"

	"github.com/rs/zerolog"
)

func withBudgets(b schema.Budgets) *engine {
	return &engine{opts: Options{Project: &project.Project{Config: &schema.Config{Budgets: b}}}, started: time.Now()}
}

// The run's budgets stop it before a rotation: max rotations (the flag,
// else the config), the wall time and the cost.
func TestLimitReached(t *testing.T) {
	for _, tc := range []struct {
		name      string
		e         *engine
		rotations int
		cost      float64
		want      string
	}{
		{"no budget", withBudgets(schema.Budgets{}), 100, 100, ""},
		{"max rotations", func() *engine { e := withBudgets(schema.Budgets{}); e.maxRotns = 2; return e }(), 2, 0, "max rotations (2) reached: state saved; run again to continue"},
		{"below max rotations", func() *engine { e := withBudgets(schema.Budgets{}); e.maxRotns = 2; return e }(), 1, 0, ""},
		{"wall time", func() *engine {
			e := withBudgets(schema.Budgets{WallTime: schema.Duration(time.Minute)})
			e.started = time.Now().Add(-time.Hour)
			return e
		}(), 0, 0, "wall-time budget (1m0s) reached"},
		{"cost", withBudgets(schema.Budgets{CostUSD: 1}), 0, 1.5, "cost budget ($1.00) reached: $1.5000 spent"},
	} {
		tc.e.outcome.Rotations, tc.e.spend.run.USD = tc.rotations, tc.cost
		stop, msg := tc.e.limitReached()
		if stop != (tc.want != "") || !strings.HasPrefix(msg, tc.want) {
			t.Errorf("%s: %v %q, want %q", tc.name, stop, msg, tc.want)
		}
	}
}

// The next spec: after DONE without changes the focus moves on; after
// another status it stays on the current spec.
func TestNext(t *testing.T) {
	spec := func(p string) plan.Spec { return plan.Spec{Spec: discovery.Spec{Path: p, Hash: "h"}} }
	for _, tc := range []struct {
		name   string
		status status.Status
		want   string
	}{
		{"DONE without changes moves on", status.Done, "b"},
		{"CONTINUE stays", status.Continue, "a"},
		{"REJECTED stays", status.Rejected, "a"},
	} {
		e := &engine{specs: []plan.Spec{spec("a"), spec("b")}, fresh: map[string]bool{}}
		a, b := state.SpecState{Path: "a"}, state.SpecState{Path: "b"}
		a.DoneCount, a.LastHash, a.LastStatus = 1, "h", tc.status
		b.DoneCount, b.LastHash, b.LastStatus = 1, "h", status.Continue
		e.st = state.State{Current: "a", Specs: []state.SpecState{a, b}}
		if got, ok := e.next(); !ok || got != tc.want {
			t.Errorf("%s: next = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

// .ralph/status stands for the output's status line when there is none
// or it agrees; when both exist and disagree there is no claim; an unknown
// word is ignored (and logged).
func TestReadStatus(t *testing.T) {
	e := &engine{dir: state.Dir(t.TempDir()), log: zerolog.Nop()}
	for _, tc := range []struct {
		file string // "" = no file
		out  status.Status
		want status.Status
	}{
		{"", status.Continue, status.Continue},
		{"done\n", status.None, status.Done},
		{"TASK_COMPLETE", status.Done, status.Done},
		{"STUCK", status.None, status.Stuck},
		{"maybe", status.Continue, status.Continue},
		{"DONE", status.Continue, status.None},
	} {
		_ = os.Remove(e.dir.StatusFile())
		if tc.file != "" {
			if err := os.WriteFile(e.dir.StatusFile(), []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := e.readStatus(plan.Spec{}, tc.out); err != nil || got != tc.want {
			t.Errorf("status file %q: %q, %v; want %q", tc.file, got, err, tc.want)
		}
	}
}

// savedBySpec pairs each spec with the state's entry of its path, as a
// map of the state would (the last of duplicates), and entry finds the
// one of a path as st.Spec does (the first), whether the pairing
// of the last scan still holds or the state changed since: an entry a
// first rotation added, entries reordered or dropped, other specs.
func TestSavedBySpecIsByPath(t *testing.T) {
	spec := func(p string) plan.Spec { return plan.Spec{Spec: discovery.Spec{Path: p, Hash: "h"}} }
	e := &engine{log: zerolog.Nop(), loader: &project.Loader{}}
	e.specs = []plan.Spec{spec("a"), spec("b"), spec("c"), spec("d")}
	e.specAt = map[string]int{"a": 0, "b": 1, "c": 2, "d": 3}
	e.st = state.State{Current: "c", Specs: []state.SpecState{{Path: "c"}, {Path: "gone"}, {Path: "a"}, {Path: "a"}}}
	e.st.Specs[2].DoneCount, e.st.Specs[3].DoneCount = 1, 2 // duplicates: a map keeps the last
	check := func(step string, indexed bool) {
		t.Helper()
		if got := e.indexed(); got != indexed {
			t.Errorf("%s: indexed = %v, want %v", step, got, indexed)
		}
		byPath := e.st.ByPath()
		saved, current := e.savedBySpec()
		for i, sp := range e.specs {
			if saved[i] != byPath[sp.Path] {
				t.Errorf("%s: %s paired with %+v, want %+v", step, sp.Path, saved[i], byPath[sp.Path])
			}
		}
		if current != byPath[e.st.Current] {
			t.Errorf("%s: current %+v, want %+v", step, current, byPath[e.st.Current])
		}
		for _, p := range []string{"a", "b", "c", "d", "gone", "other"} {
			if got, want := e.entry(p), e.st.Spec(p); got != want {
				t.Errorf("%s: entry(%s) = %+v, want %+v", step, p, got, want)
			}
		}
	}
	check("before any scan", false)
	e.dropGone()
	if len(e.st.Specs) != 3 {
		t.Fatalf("the entry of a spec gone is kept: %+v", e.st.Specs)
	}
	check("after the scan", true)
	e.st.SpecOrNew("b").DoneCount = 1
	check("an entry added", false)
	e.dropGone()
	check("scanned again", true)
	e.st.Specs[0], e.st.Specs[1] = e.st.Specs[1], e.st.Specs[0]
	check("entries reordered", false)
	e.dropGone()
	e.specs = e.specs[:3]
	check("a spec without an entry less", true)
	e.specs = e.specs[1:]
	check("a spec with entries less", false)
}
