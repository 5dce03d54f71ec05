package run

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/schema"
)

// spec is a spec of path, content hash and tier.
func spec(path, hash, tier string) plan.Spec {
	sp := plan.Spec{Tier: tier}
	sp.Path, sp.Hash = path, hash
	return sp
}

// verified is a spec state at 3/3 for hash.
func verified(path, hash string) state.SpecState {
	ss := state.SpecState{Path: path}
	ss.DoneCount, ss.StagesDone, ss.LastHash = 3, true, hash
	return ss
}

// keeper is a pull request's gate in memory.
type keeper struct {
	head string
	set  []gate.Verdict
}

func (k *keeper) Gate(_ context.Context, sha, _, _ string, v gate.Verdict) error {
	k.set = append(k.set, v)
	return nil
}
func (k *keeper) GateOn(context.Context, string, string) (string, string, error) { return "", "", nil }
func (k *keeper) Head() string                                                   { return k.head }

// gated is a channel that keeps the gate, as a pull request's does.
type gated struct {
	gate.Local
	*keeper
}

// TestEndGate: an interrupted run leaves the gate alone; a run whose
// specs are all verified, but whose work is not on the pull request (no
// delivery, a dirty checkout), leaves it pending; a limit fails it.
func TestEndGate(t *testing.T) {
	root := repo(t, "")
	p := &project.Project{Root: root, Config: &schema.Config{}, Specs: []plan.Spec{spec("a", "ha", plan.TierAuto)}}
	st := &state.State{Specs: []state.SpecState{verified("a", "ha")}}
	j := &job.Session{Log: zerolog.Nop()}
	for _, tc := range []struct {
		name  string
		code  exitcode.Code
		dirty bool
		want  string // "": no status set
	}{
		{"interrupted", exitcode.Interrupted, false, ""},
		{"clean and verified", exitcode.OK, false, gate.Success},
		{"work not delivered", exitcode.OK, true, gate.Pending},
		{"limits", exitcode.Limits, false, gate.Failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dirty {
				writeFile(t, root, "new.txt", "work\n")
				defer removeFile(t, root, "new.txt")
			}
			k := &keeper{head: "0123456789"}
			r := &ran{s: job.Open(j), p: p, ch: gated{keeper: k}}
			r.endGate(context.Background(), tc.code, outcome{Outcome: engine.Outcome{Message: "stopped", State: *st}})
			switch {
			case tc.want == "" && len(k.set) > 0:
				t.Fatalf("status set: %+v, want none", k.set)
			case tc.want != "" && (len(k.set) != 1 || k.set[0].State != tc.want):
				t.Fatalf("statuses %+v, want one %s", k.set, tc.want)
			}
			if tc.dirty && !strings.Contains(k.set[0].Description, "not on the pull request") {
				t.Errorf("description %q: want why", k.set[0].Description)
			}
		})
	}
}
