package cli

import (
	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/run"
)

func newResetCommand(opts *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reset [SPEC...]",
		Short: "Reset the verification counters and the iteration, or one spec's",
		Long: `reset sets every spec's counter to 0/3 and the global iteration to 0, so the
next run verifies everything again, and clears what the loop decided about
each spec: its same-reason rejection streak and its stuck mark (a stuck
spec runs again). Spec states are kept: last status, content hash,
changed-files flag, stage and history, and the verifier guard's baseline
(a verification file a rotation changed stays changed until it is
restored, or the spec allows the change: allow_test_changes).

With SPEC (a path relative to the repository root, as ralph-ci status
lists it), only that spec is reset; the iteration and the other specs are
kept.`,
		Example: `  ralph-ci reset && ralph-ci run
  ralph-ci reset specs/api.spec.md`,
		Args: cobra.ArbitraryArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return run.Reset(opts.session(), args)
		}),
	}
}
