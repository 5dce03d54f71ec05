package main

import (
	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/state"
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
			dir := state.At(opts.dir)
			lock, st, err := state.Open(dir, state.LockInfo{Command: "reset", Version: versionString()})
			if err != nil {
				return err
			}
			defer lock.Release()
			if err := state.Save(dir, state.Reset(st)); err != nil {
				return err
			}
			opts.log.Info().Int("specs", len(st.Specs)).Msg("counters and iteration reset; spec states kept")
			return nil
		}),
	}
}
