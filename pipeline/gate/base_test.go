package gate_test

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
)

func TestDepartures(t *testing.T) {
	spec := func(path, id, hash string) plan.Spec {
		return plan.Spec{Spec: discovery.Spec{Path: path, Hash: hash}, ID: id}
	}
	base := []gate.BaseSpec{
		{Path: "specs/a.spec.md", ID: "a", Hash: "ha", Tier: plan.TierVerify}, // renamed, same id
		{Path: "specs/b.spec.md", ID: "b", Hash: "hb", Tier: plan.TierVerify}, // moved, same content
		{Path: "specs/c.spec.md", ID: "c", Hash: "hc", Tier: plan.TierVerify}, // deleted
		{Path: "specs/d.spec.md", ID: "d", Hash: "hd", Tier: plan.TierVerify}, // stays
		{Path: "specs/e.spec.md", ID: "e", Hash: "he", Tier: plan.TierAuto},   // auto: not the gate's
		{Path: "specs/f.spec.md", ID: "f", Hash: "hf", Tier: plan.TierVerify}, // its id is taken by a spec of the base
	}
	head := []plan.Spec{
		spec("specs/new/a.spec.md", "a", "changed"),
		spec("specs/old/b.spec.md", "other", "hb"),
		spec("specs/d.spec.md", "f", "hd"), // a spec of the base: claims nothing
	}
	got := gate.Departures(base, head)
	want := map[string]string{"specs/a.spec.md": "specs/new/a.spec.md", "specs/b.spec.md": "specs/old/b.spec.md", "specs/c.spec.md": "", "specs/f.spec.md": ""}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for _, d := range got {
		if to, ok := want[d.Base.Path]; !ok || d.To != to {
			t.Errorf("%s went to %q, want %q", d.Base.Path, d.To, to)
		}
	}
}
