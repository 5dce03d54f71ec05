package reporters

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// ExitSeverity lists the exit classes from the least to the most severe.
// Merge keeps the exit of the input whose class comes last here: a run
// that failed outright outweighs one that was interrupted, which outweighs
// one that ran out of agents, then stuck specs, checkpoints escalated,
// rejected or awaiting a human, a limit reached, and finally done. A class
// not listed (exit_N) ranks between usage and failure.
var ExitSeverity = []string{
	"done",
	"limits",
	"awaiting_human",
	"rejected",
	"escalated",
	"stuck",
	"agents_exhausted",
	"interrupted",
	"usage",
	"failure",
}

// severity is the rank of an exit class in ExitSeverity.
func severity(class string) int {
	for i, c := range ExitSeverity {
		if c == class {
			// Leave room for unknown classes just below failure.
			if c == "failure" {
				return i + 1
			}
			return i
		}
	}
	return len(ExitSeverity) - 1
}

// WorseExit reports whether a is a more severe exit than b (see
// ExitSeverity).
func WorseExit(a, b report.Exit) bool { return severity(a.Class) > severity(b.Class) }

// Merge combines the reports of several jobs (the shards of a CI matrix)
// into one:
//
//   - specs are unioned by path, in the order they first appear; a spec
//     found in several reports (a shard and the integration) adds up: its
//     rotations are those of every report, its cost and duration their
//     sums, its shards the union; where it stands (outcome, counter,
//     stage, checkpoint, total rotations) comes from the report that
//     finished last (the latest finished_at; on a tie, the later one);
//   - totals are recomputed from the merged specs;
//   - the exit is the most severe one (see ExitSeverity), its message
//     prefixed with the number of reports merged when there are several;
//   - started_at is the earliest start, finished_at the latest finish;
//     tool and command come from the first report.
//
// Every report must have the current report.Version and the same command.
// The inputs are not modified.
func Merge(reports ...*report.Report) (*report.Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("merge reports: no report to merge")
	}
	for i, r := range reports {
		if r == nil {
			return nil, fmt.Errorf("merge reports: report %d is missing", i+1)
		}
		if r.Version != report.Version {
			return nil, fmt.Errorf("merge reports: report %d has version %d; this ralph-ci reads version %d", i+1, r.Version, report.Version)
		}
		if r.Command != reports[0].Command {
			return nil, fmt.Errorf("merge reports: report %d is of %q, report 1 of %q; merge reports of one command", i+1, r.Command, reports[0].Command)
		}
	}
	first := reports[0]
	out := &report.Report{
		Version: report.Version, Tool: first.Tool, Command: first.Command,
		StartedAt: first.StartedAt, FinishedAt: first.FinishedAt, Exit: first.Exit,
		Specs: []report.Spec{},
	}
	index := map[string]int{}           // spec path -> position in out.Specs
	from := map[string]*report.Report{} // spec path -> the report it was taken from
	for _, r := range reports {
		if !r.StartedAt.IsZero() && (out.StartedAt.IsZero() || r.StartedAt.Before(out.StartedAt)) {
			out.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = r.FinishedAt
		}
		if WorseExit(r.Exit, out.Exit) {
			out.Exit = r.Exit
		}
		for _, s := range r.Specs {
			i, seen := index[s.Path]
			if !seen {
				index[s.Path] = len(out.Specs)
				out.Specs = append(out.Specs, s)
				from[s.Path] = r
				continue
			}
			prev := out.Specs[i]
			if !r.FinishedAt.Before(from[s.Path].FinishedAt) {
				out.Specs[i] = s
				from[s.Path] = r
			}
			out.Specs[i] = addUp(out.Specs[i], prev, s)

		}
	}
	if len(reports) > 1 {
		msg := fmt.Sprintf("%d reports merged", len(reports))
		if m := strings.TrimSpace(out.Exit.Message); m != "" {
			msg += "; " + m
		}
		out.Exit.Message = msg
	}
	out.Totals = report.ComputeTotals(out.Specs)
	return out, nil
}

// addUp is the merged spec kept (the later report's) with the rotations,
// cost, duration and shards of both reports a and b, a first.
func addUp(kept, a, b report.Spec) report.Spec {
	kept.Rotations = append(append([]report.Rotation{}, a.Rotations...), b.Rotations...)
	kept.CostUSD = a.CostUSD + b.CostUSD
	kept.DurationSeconds = a.DurationSeconds + b.DurationSeconds
	kept.TotalRotations = max(a.TotalRotations, b.TotalRotations)
	kept.Shards = nil
	for _, sh := range append(append([]string{}, a.Shards...), b.Shards...) {
		if !slices.Contains(kept.Shards, sh) {
			kept.Shards = append(kept.Shards, sh)
		}
	}
	return kept
}
