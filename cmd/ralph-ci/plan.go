package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/shards"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

// matrixEntry is one job of the matrix plan prints.
type matrixEntry struct {
	Shard string `json:"shard"`
	// Specs is the shard's spec paths as one CSV record, for run --specs.
	Specs string `json:"specs"`
	Count int    `json:"count"`
}

func newPlanCommand(opts *globalOptions) *cobra.Command {
	var n int
	var deliverMode string
	cmd := &cobra.Command{
		Use:   "plan --shards N",
		Short: "Split the specs into the shards of a CI matrix",
		Long: `plan prints, as JSON for a GitHub Actions strategy.matrix (fromJSON), a
partition of the discovered specs into at most N shards: every spec in
exactly one (PROMPT.md too), each job's entry {"shard": "K-of-N", "specs":
"a,b", "count": 2} for run --shard and --specs. Shards are balanced by what
the loop's state knows (each spec's rotations and agent time so far) and
stable: a spec stays in the shard it ran in, as long as N stays the same.
With --deliver pr the state is the branch's integrated state in git
(refs/ralph-ci/state/<branch>), else .ralph/state.json. In GitHub Actions
the matrix is also the step output "matrix".`,
		Example: `  ralph-ci plan --shards 4
  ralph-ci plan --shards 4 --deliver pr   # in CI, before the matrix`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("shards") {
				return &usageError{fmt.Errorf("plan needs --shards N: how many jobs of the CI matrix to split the specs into (ralph-ci plan --shards 4)")}
			}
			if n < 1 {
				return &usageError{fmt.Errorf("--shards %d: want 1 or more", n)}
			}
			p, mode, err := loadDelivering(opts, loadProject, deliverMode)
			if err != nil {
				return err
			}
			planned, err := planShards(cmd.Context(), opts, p, mode, n)
			if err != nil {
				return err
			}
			raw, err := matrixJSON(planned)
			if err != nil {
				return err
			}
			fmt.Fprintln(opts.stdout, string(raw))
			if out := opts.env.actions.Output; out != "" {
				if err := appendOutputs(out, []actions.Output{{Name: "matrix", Value: string(raw)}, {Name: "shards", Value: strconv.Itoa(len(planned))}}); err != nil {
					return err
				}
			}
			opts.log.Info().Int("specs", len(p.Specs)).Int("shards", len(planned)).Msg("shards planned")
			return nil
		}),
	}
	cmd.Flags().IntVar(&n, "shards", 0, "split the specs into at most `N` shards")
	cmd.Flags().StringVar(&deliverMode, "deliver", "", "`MODE` pr reads the state delivered for the branch (default: delivery.mode)")
	return cmd
}

// planShards plans the project's specs over n shards from the state
// (the branch's integrated state in pr mode).
func planShards(ctx context.Context, opts *globalOptions, p *project.Project, mode string, n int) ([]shards.Shard, error) {
	st, err := planState(ctx, opts, p, mode)
	if err != nil {
		return nil, exitcode.New(exitcode.Failure, err)
	}
	loads := make([]shards.Load, 0, len(p.Specs))
	for _, sp := range p.Specs {
		l := shards.Load{Path: sp.Path}
		if ss := st.Spec(sp.Path); ss != nil {
			l.Rotations, l.Seconds, l.Shard = ss.Rotations, ss.Seconds, ss.Shard
		}
		loads = append(loads, l)
	}
	out, err := shards.Plan(loads, n)
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	return out, nil
}

// planState is the state plan reads.
func planState(ctx context.Context, opts *globalOptions, p *project.Project, mode string) (state.State, error) {
	if mode != schema.DeliverPR {
		return state.Load(state.At(p.Root))
	}
	g := deliver.Git{Dir: p.Root}
	d := &delivery{env: opts.env.pr}
	t, err := d.target(ctx, opts, g, p.Config)
	if err != nil {
		return state.State{}, err
	}
	tmp, err := os.MkdirTemp("", "ralph-ci-plan-")
	if err != nil {
		return state.State{}, err
	}
	defer os.RemoveAll(tmp)
	defer useGitCredential(ctx, opts, p.Root)()
	bd, err := stateBinder(opts)
	if err != nil {
		return state.State{}, err
	}
	r, err := deliver.ReadState(ctx, g, bd, t.Branch, tmp)
	if err != nil {
		return state.State{}, err
	}
	if r.State != "" && !r.Bound {
		opts.log.Warn().Msg(deliver.Unbound(r.Ref, r.Binding))
	}
	return state.Load(state.Dir(tmp))
}

// matrixJSON is the plan as a strategy.matrix: {"include": [...]}.
func matrixJSON(planned []shards.Shard) ([]byte, error) {
	m := struct {
		Include []matrixEntry `json:"include"`
	}{}
	for _, sh := range planned {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.Write(sh.Specs); err != nil {
			return nil, err
		}
		w.Flush()
		m.Include = append(m.Include, matrixEntry{Shard: sh.Name, Specs: string(bytes.TrimRight(b.Bytes(), "\r\n")), Count: len(sh.Specs)})
	}
	return json.Marshal(m)
}

// appendOutputs appends step outputs to the GITHUB_OUTPUT file.
func appendOutputs(path string, outs []actions.Output) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write the step outputs: %w", err)
	}
	err = actions.WriteOutputs(f, outs, nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the step outputs: %w", err)
	}
	return nil
}
