package shards

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/spend"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

func planString(shards []Shard) string {
	var parts []string
	for _, s := range shards {
		parts = append(parts, s.Name+"="+strings.Join(s.Specs, ","))
	}
	return strings.Join(parts, " ")
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name  string
		specs []Load
		n     int
		want  string
	}{
		{"nothing known: balanced by count, heaviest first then path", []Load{{Path: "PROMPT.md"}, {Path: "a"}, {Path: "b"}, {Path: "c"}}, 2,
			"1-of-2=PROMPT.md,b 2-of-2=a,c"},
		{"fewer specs than shards: no idle job", []Load{{Path: "PROMPT.md"}, {Path: "a"}}, 4, "1-of-4=PROMPT.md 2-of-4=a"},
		{"time so far balances", []Load{{Path: "a", Rotations: 10, Seconds: 100}, {Path: "b", Rotations: 3, Seconds: 30}, {Path: "c", Rotations: 3, Seconds: 30}, {Path: "d", Rotations: 3, Seconds: 30}}, 2,
			"1-of-2=a 2-of-2=b,c,d"},
		{"a spec keeps its shard; new ones go to the lightest", []Load{{Path: "a", Shard: "2-of-2"}, {Path: "b", Shard: "2-of-2"}, {Path: "c"}, {Path: "d"}}, 2,
			"1-of-2=c,d 2-of-2=a,b"},
		{"another shard count plans afresh", []Load{{Path: "a", Shard: "2-of-2"}, {Path: "b", Shard: "2-of-2"}, {Path: "c"}}, 3,
			"1-of-3=a 2-of-3=b 3-of-3=c"},
		{"a spec listed twice is planned once", []Load{{Path: "PROMPT.md"}, {Path: "PROMPT.md"}}, 2, "1-of-2=PROMPT.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Plan(tc.specs, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if s := planString(got); s != tc.want {
				t.Fatalf("plan %s, want %s", s, tc.want)
			}
		})
	}
	if _, err := Plan(nil, 2); err == nil {
		t.Error("a plan of no spec did not fail")
	}
	if _, err := Plan([]Load{{Path: "a"}}, 0); err == nil {
		t.Error("a plan of 0 shards did not fail")
	}
}

// TestPlanPartition: every spec in exactly one shard, for many sizes.
func TestPlanPartition(t *testing.T) {
	for total := 1; total <= 20; total++ {
		var specs []Load
		for i := range total {
			specs = append(specs, Load{Path: fmt.Sprintf("specs/%02d.spec.md", i), Rotations: i % 4, Seconds: float64(i % 3 * 10)})
		}
		for n := 1; n <= 6; n++ {
			got, err := Plan(specs, n)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, s := range got {
				all = append(all, s.Specs...)
			}
			slices.Sort(all)
			if len(got) > n || len(all) != total || len(slices.Compact(all)) != total {
				t.Fatalf("%d specs over %d shards: %s", total, n, planString(got))
			}
		}
	}
}

func TestParseName(t *testing.T) {
	for in, want := range map[string]string{"1-of-2": "1 2", "3/4": "3 4", "0-of-2": "error", "3-of-2": "error", "x": "error", "1-of-0": "error"} {
		k, n, err := ParseName(in)
		got := fmt.Sprintf("%d %d", k, n)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("ParseName(%q) = %s, want %s", in, got, want)
		}
	}
}

func spec(path string, done, rotations int) state.SpecState {
	ss := state.SpecState{Path: path}
	ss.DoneCount, ss.Rotations, ss.StagesDone = done, rotations, done == 3
	return ss
}

// TestMerge plays the story: shard 1 verified a (3/3) and then
// shard 2 pushed b's work; a drops to 2/3 at the integration, b (whose
// state describes the integrated commit) stays 3/3.
func TestMerge(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	base := Input{State: state.State{Version: 1, Iteration: 4, Specs: []state.SpecState{spec("PROMPT.md", 3, 4), spec("a", 0, 0)}}, Changed: []string{"b.txt"}}
	one := Input{Name: "1-of-2", Time: t0, Changed: []string{"b.txt"}, State: state.State{Version: 1, Iteration: 9, Specs: []state.SpecState{spec("a", 3, 5)},
		Pending: &state.Rotation{Spec: "a"}, LimitedAgents: map[string]time.Time{"claude": t0}}}
	two := Input{Name: "2-of-2", Time: t0.Add(time.Minute), State: state.State{Version: 1, Iteration: 7, Specs: []state.SpecState{spec("b", 3, 3)},
		LimitedAgents: map[string]time.Time{"claude": t0.Add(time.Hour)}}}
	base.State.Spend, one.State.Spend, two.State.Spend = spend.Amount{USD: 1, Tokens: 100}, spend.Amount{USD: 1.5, Tokens: 150}, spend.Amount{USD: 1.25, Tokens: 120, Unpriced: 1}
	got, placed := Merge(base, []Input{two, one})
	var desc []string
	for _, ss := range got.Specs {
		desc = append(desc, fmt.Sprintf("%s:%d/3:%s:%d", ss.Path, ss.DoneCount, ss.Shard, ss.Rotations))
	}
	if s := strings.Join(desc, " "); s != "PROMPT.md:2/3::4 a:2/3:1-of-2:5 b:3/3:2-of-2:3" {
		t.Fatalf("merged specs %s", s)
	}
	if got.Iteration != 4+5+3 || got.Pending != nil || !got.LimitedAgents["claude"].Equal(t0.Add(time.Hour)) {
		t.Fatalf("iteration %d (want 12), pending %v, limited %v", got.Iteration, got.Pending, got.LimitedAgents)
	}
	if want := (spend.Amount{USD: 1.75, Tokens: 170, Unpriced: 1}); got.Spend != want {
		t.Fatalf("spend %+v, want %+v: the base's and each shard's own, once", got.Spend, want)
	}
	want := []Placement{{Path: "PROMPT.md", Dropped: true}, {Path: "a", Shard: "1-of-2", Dropped: true}, {Path: "b", Shard: "2-of-2"}}
	if !slices.Equal(placed, want) {
		t.Fatalf("placements %+v, want %+v", placed, want)
	}
	if base.State.Specs[0].DoneCount != 3 || one.State.Specs[0].Shard != "" {
		t.Fatal("Merge modified its inputs")
	}
}

func TestMergeGuardrails(t *testing.T) {
	got := MergeGuardrails("# G\nbase line\n", []string{"# G\nbase line\nfrom one\n", "# G\nbase line\nfrom two\nfrom one\n"})
	if got != "# G\nbase line\nfrom one\nfrom two\n" {
		t.Fatalf("guardrails %q", got)
	}
}
