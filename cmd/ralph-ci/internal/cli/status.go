package cli

import (
	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/run"
)

func newStatusCommand(opts *GlobalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the matrix of specs and their verification counters",
		Long: `status prints one line per spec: its path, verification counter (n/3), the
status of its last rotation, whether that rotation changed files, its
current stage and tier. It reads .ralph/state.json and changes nothing.`,
		Example: `  ralph-ci status
  ralph-ci status --json | jq '.[] | select(.verified | not) | .path'`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return run.Status(opts.session(), asJSON)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the matrix as JSON")
	return cmd
}
