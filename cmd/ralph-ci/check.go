package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

func newCheckCommand(opts *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate the config and every spec's front matter",
		Long: `check validates the config file and the front matter of every discovered
spec against the schemas built into ralph-ci. Every problem is printed as
file:line:col: field: message, and the exit code is 2. When all is valid it
prints one line per spec: its verification tier, stages and methods.`,
		Example: `  ralph-ci check
  ralph-ci check --config ci/ralph.yaml
  ralph-ci -C examples/quickstart check`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			p, err := loadProject(opts)
			if err != nil {
				return err
			}
			for _, s := range p.Specs {
				fmt.Fprintf(opts.stdout, "%s\ttier=%s\tstages=%s\tmethods=%s\n",
					s.Path, s.Tier, strings.Join(s.StageNames(), ","), strings.Join(s.Methods(), ","))
			}
			opts.log.Info().Int("specs", len(p.Specs)).Str("config", p.ConfigPath).Msg("check passed")
			return nil
		}),
	}
}

// runE adapts a command body so that every error it returns carries an
// exit code (Failure unless it says otherwise). Errors without a code can
// then only come from cobra itself: usage errors.
func runE(f func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var ce *exitcode.Error
		if err != nil && !errors.As(err, &ce) {
			return exitcode.New(exitcode.Failure, err)
		}
		return err
	}
}
