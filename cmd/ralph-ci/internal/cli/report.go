package cli

import (
	"github.com/ralph-ci/ralph-ci/reporters/publish"

	"github.com/spf13/cobra"
)

func newReportCommand(opts *GlobalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Combine the reports of several jobs",
		Long: `report works on the JSON reports that ralph-ci run writes
(reporters.json in the config, .ralph/reports/report.json by default).`,
		Example: `  ralph-ci report merge --json all.json --junit all.xml shard-*/report.json`,
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(newReportMergeCommand(opts))
	return cmd
}

func newReportMergeCommand(opts *GlobalOptions) *cobra.Command {
	var junitOut, jsonOut string
	var gh bool
	cmd := &cobra.Command{
		Use:   "merge [--json FILE] [--junit FILE] [--github] REPORT.json...",
		Short: "Merge the JSON reports of several jobs into one JSON and/or JUnit report",
		Long: `merge combines the JSON reports of several jobs, such as the shards of a
GitHub Actions matrix, into one report, written as JSON (--json) and/or
JUnit XML (--junit); with --github, in GitHub Actions, it also writes the job
summary, the step outputs and the annotations of the merged report.

Specs are unioned by path. A spec found in several reports (a shard's and
the integration's) adds up: its rotations, cost, duration and shards are
those of every report; where it stands (outcome, counter, checkpoint) comes
from the report that finished last (the latest finished_at; on a tie, the
one named later). Totals are recomputed, so they count every rotation of
every job: merge each job's report once. The exit is the most severe one,
from least to most: done, limits, awaiting_human, rejected, escalated,
stuck, agents_exhausted, interrupted, usage, failure (an unknown class
ranks just below failure). The spend adds up: the run's is every job's;
the pull request's counts each rotation once (the least any job started
from, plus every job's run), the day's is the last read, the caps that
stopped something are all listed. Every report must be of version 1 and of the
same command; each is validated against the report schema first.

Relative paths are relative to -C DIR. The exit code is 0 when the merged
reports were written, whatever their exit class: read it from the report or
the status step output.`,
		Example: `  ralph-ci report merge --json merged/report.json --junit merged/junit.xml reports/*/report.json
  ralph-ci report merge --github --junit junit.xml shard-1.json shard-2.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			s := opts.session()
			targets := publish.Targets{Root: s.Dir, JUnit: junitOut, JSON: jsonOut, GitHub: gh}
			merged, err := publish.Merge(cmd.Context(), args, targets, s.Env.Actions, s.Stdout)
			if err == nil {
				s.Log.Info().Int("reports", len(args)).Int("specs", merged.Totals.Specs).Str("exit", merged.Exit.Class).Msg("reports merged")
			}
			return err
		}),
	}
	f := cmd.Flags()
	f.StringVar(&jsonOut, "json", "", "write the merged JSON report to `FILE`")
	f.StringVar(&junitOut, "junit", "", "write the merged report as JUnit XML to `FILE`")
	f.BoolVar(&gh, "github", false, "in GitHub Actions, also write the job summary, step outputs and annotations")
	return cmd
}
