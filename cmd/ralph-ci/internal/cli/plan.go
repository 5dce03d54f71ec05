package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/run"
)

func newPlanCommand(opts *GlobalOptions) *cobra.Command {
	var o run.PlanOptions
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
				return &exitcode.UsageError{Err: errors.New("plan needs --shards N: how many jobs of the CI matrix to split the specs into (ralph-ci plan --shards 4)")}
			}
			return run.Plan(cmd.Context(), opts.session(), o)
		}),
	}
	cmd.Flags().IntVar(&o.Shards, "shards", 0, "split the specs into at most `N` shards")
	cmd.Flags().StringVar(&opts.Deliver, "deliver", "", "`MODE` pr or branch reads the state delivered for the branch (default: delivery.mode)")
	return cmd
}
