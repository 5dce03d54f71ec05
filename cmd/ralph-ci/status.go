package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/engine"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
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

// printRows prints the status matrix as aligned columns. The table goes
// out in large writes: tabwriter writes every cell and its padding on its
// own, a write system call each on an unbuffered stdout (seven per spec).
func printRows(opts *globalOptions, rows []engine.Row) {
	bw := bufio.NewWriterSize(opts.stdout, 64<<10)
	defer bw.Flush()
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
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
