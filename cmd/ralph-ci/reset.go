package main

import (
	"github.com/ralph-ci/ralph-ci/pipeline/run"
	"github.com/spf13/cobra"
)

func newResetCommand(opts *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reset",
		Short: "Reset every verification counter and the iteration",
		Long: `reset sets every spec's counter to 0/3 and the global iteration to 0, so the
next run verifies everything again. Spec states are kept: last status,
content hash, changed-files flag, stage and history.`,
		Example: `  ralph-ci reset && ralph-ci run`,
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return run.Reset(&opts.Job)
		}),
	}
}
