package prchannel

import (
	"context"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

// gateOn is a gate that answers GateOn with a state and a description.
type gateOn struct{ state, desc string }

func (g gateOn) Gate(context.Context, string, string, string, gate.Verdict) error { return nil }
func (g gateOn) GateOn(context.Context, string, string) (string, string, error) {
	return g.state, g.desc, nil
}
func (g gateOn) Head() string { return "head" }

// TestVerifiedEarlier: ralph-ci's own status (of the default context) says a head is verified when
// it is success or names every spec verified.
func TestVerifiedEarlier(t *testing.T) {
	for _, tc := range []struct {
		g    gateOn
		want bool
	}{
		{gateOn{gate.Success, ""}, true},
		{gateOn{gate.Pending, gate.VerifiedNote + " at abc; awaiting approval: a"}, true},
		{gateOn{gate.Pending, "not verified 3/3"}, false},
		{gateOn{"", ""}, false},
	} {
		why, err := VerifiedEarlier(context.Background(), tc.g, "head", nil)
		if err != nil || (len(why) == 0) != tc.want {
			t.Errorf("%+v: why %q (%v), want verified %v", tc.g, why, err, tc.want)
		}
	}
}
