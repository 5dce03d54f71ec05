package gate

import (
	"fmt"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
)

// Which specs exist on a pull request is decided with its base commit too:
// a pull request must not shed a verify-tier spec's checkpoint by moving
// or renaming its file (the new path would be a new spec, which may be
// auto), nor by changing specs.dirs or specs.prompt in its own config so
// that the file is no longer discovered (the channel discovers with the
// base's). Each verify-tier spec of the base whose path is gone from the
// head is looked for among the head's specs that are new (not at a path
// of the base): one with the same front-matter id, else the same content,
// is the same spec moved, and stays verify. One found nowhere left the
// pull request: its removal is a checkpoint of its own (RemovalSpec), and
// the gate says so (output, job summary, annotation).

// BaseSpec is a spec file on the pull request's base commit.
type BaseSpec struct {
	Path string // relative to the specs' root, as plan.Spec.Path
	ID   string // its front matter's id ("" if none)
	Hash string // of its content, as plan.Spec.Hash
	Tier string // its tier on the base
}

// Departure is a verify-tier spec of the base not at its path on the head.
type Departure struct {
	Base BaseSpec
	// To is the head spec it moved to, "" when it left the pull request.
	To string
}

// Departures finds the verify-tier specs of base that are not at their
// path among head, and where each went (an id or a content match among
// the head's new specs; each head spec claims at most one).
func Departures(base []BaseSpec, head []plan.Spec) []Departure {
	onBase, onHead := map[string]bool{}, map[string]bool{}
	for _, b := range base {
		onBase[b.Path] = true
	}
	for _, h := range head {
		onHead[h.Path] = true
	}
	claimed := map[string]bool{}
	var out []Departure
	for _, b := range base {
		if b.Tier != plan.TierVerify || onHead[b.Path] {
			continue
		}
		d := Departure{Base: b}
		for _, match := range []func(plan.Spec) bool{
			func(h plan.Spec) bool { return b.ID != "" && h.ID == b.ID },
			func(h plan.Spec) bool { return b.Hash != "" && h.Hash == b.Hash },
		} {
			for _, h := range head {
				if d.To == "" && !onBase[h.Path] && !claimed[h.Path] && match(h) {
					d.To = h.Path
				}
			}
		}
		claimed[d.To] = d.To != ""
		out = append(out, d)
	}
	return out
}

// Message is what the gate says of d.
func (d Departure) Message() string {
	if d.To != "" {
		return fmt.Sprintf("%s (verify on the pull request's base) moved to %s: it keeps its human checkpoint (tier verify)", d.Base.Path, d.To)
	}
	return fmt.Sprintf("%s (verify on the pull request's base) is not in the pull request: its removal is a checkpoint of its own, pending until a person who may approve accepts it", d.Base.Path)
}

// RemovalSpec is the checkpoint of the removal of b, a verify-tier spec
// of the base that left the pull request (a Departure with no To): the
// gate stays pending until a person who may approve accepts it, answered
// like any checkpoint (1/yes or 👍 accepts; a rejection fails the gate
// until the spec is back). It has the base's path, so its comment and
// its ralph-ci/<path> status are found as a spec's.
func RemovalSpec(b BaseSpec) plan.Spec {
	sp := plan.Spec{Title: "Removal of " + b.Path, ID: "removal:" + b.Path, Tier: plan.TierVerify, Removal: true,
		AcceptanceCriteria: []string{b.Path + " (tier verify on the pull request's base) is no longer in this pull request, and its human checkpoint goes with it"},
		Steps:              []string{"Check that removing " + b.Path + " (or replacing it by a spec that is not recognised as it) is intended"}}
	sp.Path, sp.Hash = b.Path, b.Hash
	return sp
}
