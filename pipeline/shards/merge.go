package shards

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Input is one state to integrate: the branch's integrated state (the
// base) or a shard's.
type Input struct {
	// Name is the shard ("1-of-2"); "" for the base.
	Name  string
	State state.State
	// Changed are the files that differ between the commit the state
	// describes and the integrated commit.
	Changed []string
	// Time is when the state was saved; the later shard wins a spec that
	// two shards hold (a plan that moved it).
	Time time.Time
}

// Placement says where a spec's integrated state came from.
type Placement struct {
	Path string
	// Shard is the shard whose state was taken, "" for the base.
	Shard string
	// Dropped is true when the spec was 3/3 there and dropped to 2/3,
	// because files it has not seen changed.
	Dropped bool
}

// Merge folds the shards' states into the base and returns the state of
// the integrated commit:
//
//   - each spec's state comes from the shard that ran it (the latest
//     saved, should two hold it), else from the base, and records that
//     shard (SpecState.Shard) so that the next plan keeps it there;
//   - the multi-spec rule across shards: a spec whose state describes a
//     commit other than the integrated one saw none of the files changed
//     since (another shard's work, a person's push): at 3/3 it drops to
//     2/3, to be verified again on the integrated commit;
//   - the iteration counts every shard's rotations once, and the spend
//     (budgets.per_pull_request) every shard's spend once; an interrupted
//     rotation (Pending) is dropped (its work tree is gone); rate-limited
//     agents are the union, the latest reset winning.
//
// The inputs are not modified.
func Merge(base Input, shards []Input) (state.State, []Placement) {
	order := slices.Clone(shards)
	slices.SortStableFunc(order, func(a, b Input) int {
		return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.Name, b.Name))
	})
	out := state.State{Version: base.State.Version, Iteration: base.State.Iteration, Spend: base.State.Spend}
	type taken struct {
		ss   state.SpecState
		from *Input
	}
	specs := map[string]taken{}
	for _, ss := range base.State.Specs {
		specs[ss.Path] = taken{ss, &base}
	}
	for i := range order {
		in := &order[i]
		out.Iteration += max(0, in.State.Iteration-base.State.Iteration)
		out.Spend = out.Spend.Add(in.State.Spend.Sub(base.State.Spend)) // a shard starts from the base's
		for _, ss := range in.State.Specs {
			ss.Shard = in.Name
			specs[ss.Path] = taken{ss, in}
		}
		for agent, until := range in.State.LimitedAgents {
			if out.LimitedAgents == nil {
				out.LimitedAgents = map[string]time.Time{}
			}
			if until.After(out.LimitedAgents[agent]) {
				out.LimitedAgents[agent] = until
			}
		}
	}
	for agent, until := range base.State.LimitedAgents {
		if _, ok := out.LimitedAgents[agent]; !ok {
			if out.LimitedAgents == nil {
				out.LimitedAgents = map[string]time.Time{}
			}
			out.LimitedAgents[agent] = until
		}
	}
	var placed []Placement
	for _, path := range slices.Sorted(maps.Keys(specs)) {
		t := specs[path]
		ss := t.ss
		p := Placement{Path: path, Shard: t.from.Name}
		if len(t.from.Changed) > 0 {
			before := ss.DoneCount
			ss.DoneCount = counter.Propagate(ss.DoneCount)
			p.Dropped = ss.DoneCount != before
		}
		out.Specs = append(out.Specs, ss)
		placed = append(placed, p)
	}
	return out, placed
}

// MergeGuardrails keeps the shared guardrails of the base and appends the
// lines each shard added (in order, each line once).
func MergeGuardrails(base string, shards []string) string {
	have := map[string]bool{}
	for _, l := range strings.Split(base, "\n") {
		have[l] = true
	}
	out := base
	for _, sh := range shards {
		for _, l := range strings.Split(sh, "\n") {
			if have[l] {
				continue
			}
			have[l] = true
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += l + "\n"
		}
	}
	return out
}
