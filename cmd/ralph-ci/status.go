package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

func newStatusCommand(opts *globalOptions) *cobra.Command {
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
			p, err := loadProject(opts)
			if err != nil {
				return err
			}
			st, err := state.Load(state.At(p.Root))
			if err != nil {
				return err
			}
			rows := engine.Rows(p.Specs, st)
			if asJSON {
				enc := json.NewEncoder(opts.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			printRows(opts, rows)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the matrix as JSON")
	return cmd
}

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

// loadProject loads the config and specs, printing every problem.
func loadProject(opts *globalOptions) (*project.Project, error) {
	p, err := project.Load(opts.dir, opts.config)
	var problems schema.Problems
	if errors.As(err, &problems) {
		env := actions.EnvFrom(os.Getenv)
		for _, p := range problems {
			fmt.Fprintln(opts.stdout, p)
			if env.Actions { // an annotation on the line in the pull request
				_ = actions.WriteAnnotation(opts.stdout, actions.Annotation{Level: actions.LevelError, File: filepath.ToSlash(filepath.Join(opts.dir, p.File)), Line: p.Line, Col: p.Col, Title: "ralph-ci: " + p.Path, Message: p.Msg})
			}
		}
		opts.log.Error().Int("problems", len(problems)).Msg("fix the problems above (ralph-ci check)")
		return nil, exitcode.Printed(exitcode.Usage, problems)
	}
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	for _, w := range p.Warnings {
		opts.log.Warn().Msg(w)
	}
	return p, nil
}

// printRows prints the status matrix as aligned columns.
func printRows(opts *globalOptions, rows []engine.Row) {
	tw := tabwriter.NewWriter(opts.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SPEC\tCOUNTER\tLAST STATUS\tCHANGED FILES\tSTAGE\tTIER\tNOTE")
	for _, r := range rows {
		note := r.Excluded
		if note == "" && r.Verified {
			note = "verified"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Path, r.Counter, r.LastStatus, yesNo(r.ModifiedFiles), r.Stage, r.Tier, strings.TrimSpace(note))
	}
	tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
