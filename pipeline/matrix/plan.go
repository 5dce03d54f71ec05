// Package matrix is ralph-ci's side of a CI matrix: the specs split into
// shards from what the loop's state knows (Planned, JSON: the plan
// command's, in pipeline/run), a shard's run keeps only its specs and
// pushes its state to its own ref, and the integration folds every
// shard's state into the branch's (Part, with pipeline/shards' rules).
// It takes the job session through the one thing it asks of it (States),
// so it stands below pipeline/job.
package matrix

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/shards"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// States reads the loop's state where the job's delivery mode keeps it
// (job.Trusted.DeliveredState).
type States interface {
	DeliveredState(ctx context.Context, p *project.Project) (state.State, error)
}

// Planned plans the project's specs over n shards from the state (the
// branch's integrated state in a mode whose state travels in git), as
// plan prints them.
func Planned(ctx context.Context, states States, p *project.Project, n int) ([]shards.Shard, error) {
	st, err := states.DeliveredState(ctx, p)
	if err != nil {
		return nil, exitcode.New(exitcode.Failure, err)
	}
	out, err := shards.Plan(loads(p, st), n)
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	return out, nil
}

// loads are what the state knows of each spec's weight.
func loads(p *project.Project, st state.State) []shards.Load {
	out := make([]shards.Load, 0, len(p.Specs))
	for _, sp := range p.Specs {
		l := shards.Load{Path: sp.Path}
		if ss := st.Spec(sp.Path); ss != nil {
			l.Rotations, l.Seconds, l.Shard = ss.Rotations, ss.Seconds, ss.Shard
		}
		out = append(out, l)
	}
	return out
}

// Entry is one job of the matrix plan prints.
type Entry struct {
	Shard string `json:"shard"`
	// Specs is the shard's spec paths as one CSV record, for run --specs.
	Specs string `json:"specs"`
	Count int    `json:"count"`
}

// JSON is the plan as a strategy.matrix: {"include": [...]}.
func JSON(planned []shards.Shard) ([]byte, error) {
	m := struct {
		Include []Entry `json:"include"`
	}{}
	for _, sh := range planned {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.Write(sh.Specs); err != nil {
			return nil, err
		}
		w.Flush()
		m.Include = append(m.Include, Entry{Shard: sh.Name, Specs: string(bytes.TrimRight(b.Bytes(), "\r\n")), Count: len(sh.Specs)})
	}
	return json.Marshal(m)
}
