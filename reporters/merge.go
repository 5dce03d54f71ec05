package reporters

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/spend"
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
//   - the spend adds up (mergeSpend): every job's run, the pull request's
//     counted once, the stops of every report; a spec's spend (all runs)
//     is the highest reported, as its total rotations;
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
	out.Spend = mergeSpend(reports)
	return out, nil
}

// mergeSpend adds up the reports' spend, nil when none has any: the run's
// is the sum of every job's; the pull request's (a count over all runs of
// its state) is the least any report started from, its pull_request less
// its run, plus every report's run, so that shards seeded from one state
// and the integration that folds theirs count each rotation once; the
// day's is the read of the report that finished last (one ledger for the
// repository); the stops are every report's, in order.
func mergeSpend(reports []*report.Report) *report.Spend {
	var out *report.Spend
	var run, base spend.Amount
	var dayAt time.Time
	for _, r := range reports {
		sp := r.Spend
		if sp == nil {
			continue
		}
		started := amountOf(sp.PullRequest).Sub(amountOf(sp.Run))
		if out == nil {
			out, base = &report.Spend{}, started
		}
		base = spend.Amount{USD: min(base.USD, started.USD), Tokens: min(base.Tokens, started.Tokens), Unpriced: min(base.Unpriced, started.Unpriced)}
		run = run.Add(amountOf(sp.Run))
		if sp.Day != nil && !r.FinishedAt.Before(dayAt) {
			day := *sp.Day
			out.Day, dayAt = &day, r.FinishedAt
		}
		out.Stops = append(out.Stops, sp.Stops...)
	}
	if out == nil {
		return nil
	}
	out.Run, out.PullRequest = reportAmount(run), reportAmount(base.Add(run))
	return out
}

// amountOf and reportAmount convert a spend between the report's form
// and the spend model's, whose USDText is the report's text.
func amountOf(a report.Amount) spend.Amount {
	return spend.Amount{USD: a.USD, Tokens: a.Tokens, Unpriced: a.Unpriced}
}

func reportAmount(a spend.Amount) report.Amount {
	return report.Amount{USD: a.USD, Tokens: a.Tokens, Unpriced: a.Unpriced, Text: a.USDText()}
}

// higher is the higher of two spends of one spec over all runs (a field
// at a time), nil when neither report has one.
func higher(a, b *report.Amount) *report.Amount {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	h := reportAmount(spend.Amount{USD: max(a.USD, b.USD), Tokens: max(a.Tokens, b.Tokens), Unpriced: max(a.Unpriced, b.Unpriced)})
	return &h
}

// addUp is the merged spec kept (the later report's) with the rotations,
// cost, duration and shards of both reports a and b, a first, and the
// higher spend of all runs.
func addUp(kept, a, b report.Spec) report.Spec {
	kept.Rotations = append(append([]report.Rotation{}, a.Rotations...), b.Rotations...)
	kept.CostUSD = a.CostUSD + b.CostUSD
	kept.DurationSeconds = a.DurationSeconds + b.DurationSeconds
	kept.TotalRotations = max(a.TotalRotations, b.TotalRotations)
	kept.Spend = higher(a.Spend, b.Spend)
	kept.Shards = nil
	for _, sh := range append(append([]string{}, a.Shards...), b.Shards...) {
		if !slices.Contains(kept.Shards, sh) {
			kept.Shards = append(kept.Shards, sh)
		}
	}
	return kept
}
