// Package matrix is ralph-ci's side of a CI matrix: plan splits the specs
// into shards (Plan), a shard's run keeps only its specs and pushes its
// state to its own ref, and the integration folds every shard's state
// into the branch's (Part, with pipeline/shards' rules).
package matrix

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/shards"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
)

// PlanOptions are plan's: how many shards, and --deliver.
type PlanOptions struct {
	Shards  int
	Deliver string // --deliver ("": the config's delivery.mode)
}

// Plan is the plan command: it loads the project, splits its specs into
// at most o.Shards shards and prints the matrix as JSON (also the step
// outputs matrix and shards in GitHub Actions).
func Plan(ctx context.Context, j *job.Session, o PlanOptions) error {
	if o.Shards < 1 {
		return exitcode.Usagef("--shards %d: want 1 or more", o.Shards)
	}
	p, err := j.Load()
	if err != nil {
		return err
	}
	ctx = github.WithTimeout(ctx, p.Config.GitHub.Timeout.Std())
	mode, err := job.DeliveryMode(o.Deliver, p.Config)
	if err != nil {
		return err
	}
	planned, err := plan(ctx, j, p, mode, o.Shards)
	if err != nil {
		return err
	}
	raw, err := JSON(planned)
	if err != nil {
		return err
	}
	fmt.Fprintln(j.Stdout, string(raw))
	if out := j.Env.Actions.Output; out != "" {
		if err := actions.AppendOutputs(out, []actions.Output{{Name: "matrix", Value: string(raw)}, {Name: "shards", Value: strconv.Itoa(len(planned))}}); err != nil {
			return err
		}
	}
	j.Log.Info().Int("specs", len(p.Specs)).Int("shards", len(planned)).Msg("shards planned")
	return nil
}

// plan plans the project's specs over n shards from the state (the
// branch's integrated state in pr mode).
func plan(ctx context.Context, j *job.Session, p *project.Project, mode deliver.Mode, n int) ([]shards.Shard, error) {
	st, err := planState(ctx, j, p, mode)
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

// planState is the state plan reads: the branch's, from git, in a mode
// whose state travels there.
func planState(ctx context.Context, j *job.Session, p *project.Project, mode deliver.Mode) (state.State, error) {
	if mode.State != deliver.StateInGit {
		return state.Load(state.At(p.Root))
	}
	g := deliver.Git{Dir: p.Root}
	t, _, err := j.Target(ctx, g, p.Config, mode)
	if err != nil {
		return state.State{}, err
	}
	tmp, err := os.MkdirTemp("", "ralph-ci-plan-")
	if err != nil {
		return state.State{}, err
	}
	defer os.RemoveAll(tmp)
	defer j.UseGitCredential(ctx, p.Root)()
	bd, err := j.StateBinder()
	if err != nil {
		return state.State{}, err
	}
	r, err := deliver.ReadState(ctx, g, bd, t.Branch, tmp)
	if err != nil {
		return state.State{}, err
	}
	if r.State != "" && !r.Bound {
		j.Log.Warn().Msg(deliver.Unbound(r.Ref, r.Binding))
	}
	return state.Load(state.Dir(tmp))
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
