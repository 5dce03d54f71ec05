package gate_test

import (
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// TestDelivered: the gate of delivery pr passes only on state delivered
// for the pull request's very head with every spec verified 3/3 there.
func TestDelivered(t *testing.T) {
	a := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "ha"}}
	b := plan.Spec{Spec: discovery.Spec{Path: "specs/b.spec.md", Hash: "hb"}}
	done := func(sp plan.Spec) state.SpecState {
		return state.SpecState{Path: sp.Path, Counting: state.Counting{DoneCount: 3, LastHash: sp.Hash}, Staging: state.Staging{StagesDone: true}}
	}
	twoThirds := done(b)
	twoThirds.DoneCount = 2
	oldContent := done(b)
	oldContent.LastHash = "older"
	for _, tc := range []struct {
		name            string
		specs           []state.SpecState
		found           bool
		described, head string
		want            []string
	}{
		{"verified at the head", []state.SpecState{done(a), done(b)}, true, "c1", "c1", nil},
		{"nothing delivered", nil, false, "", "c1", []string{"no loop state was delivered for the branch feature"}},
		{"a person pushed since", []state.SpecState{done(a), done(b)}, true, "c0ffee1", "c1a2b3c", []string{"the loop's state describes commit c0ffee1, the pull request is at c1a2b3c"}},
		{"one spec at 2/3", []state.SpecState{done(a), twoThirds}, true, "c1", "c1", []string{"specs/b.spec.md is not verified 3/3"}},
		{"verified for other content", []state.SpecState{done(a), oldContent}, true, "c1", "c1", []string{"specs/b.spec.md is not verified 3/3"}},
		{"a spec the state lacks", []state.SpecState{done(a)}, true, "c1", "c1", []string{"specs/b.spec.md is not verified 3/3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &state.State{Version: state.Version, Specs: tc.specs}
			if got := gate.Delivered([]plan.Spec{a, b}, st, tc.found, tc.described, "feature", tc.head); !slices.Equal(got, tc.want) {
				t.Errorf("Delivered = %q, want %q", got, tc.want)
			}
		})
	}
}
