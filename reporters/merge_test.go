package reporters_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

// shard is a report of the given specs (path:outcome), finished at
// minute end, exiting with class.
func shard(end int, class string, specs ...string) *report.Report {
	r := &report.Report{
		Version: report.Version, Command: "run", Tool: report.Tool{Name: "ralph-ci", Version: "v1"},
		StartedAt:  reportstest.Start.Add(time.Duration(end-5) * time.Minute),
		FinishedAt: reportstest.Start.Add(time.Duration(end) * time.Minute),
		Exit:       report.Exit{Class: class, Message: class + " here"},
	}
	for _, s := range specs {
		path, outcome, _ := strings.Cut(s, ":")
		r.Specs = append(r.Specs, report.Spec{Path: path, Outcome: outcome, Rotations: make([]report.Rotation, end), CostUSD: 1})
	}
	return r
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name      string
		in        []*report.Report
		specs     string // path:outcome:rotations, in order
		exit      string
		message   string
		start     int // minutes after reportstest.Start
		totalsKey report.Totals
	}{
		{
			name:  "disjoint shards",
			in:    []*report.Report{shard(10, "done", "a:verified"), shard(20, "limits", "b:pending", "c:verified")},
			specs: "a:verified:10 b:pending:20 c:verified:20", exit: "limits", message: "2 reports merged; limits here", start: 5,
			totalsKey: report.Totals{Specs: 3, Verified: 2, Pending: 1, Rotations: 50, CostUSD: 3},
		},
		{
			// Issue 14: a shared spec's rotations and cost add up (no
			// undercount); the latest report says where it stands.
			name:  "a shared spec adds up, the latest report says where it stands",
			in:    []*report.Report{shard(30, "stuck", "PROMPT.md:verified", "a:stuck"), shard(20, "done", "PROMPT.md:pending", "b:verified")},
			specs: "PROMPT.md:verified:50 a:stuck:30 b:verified:20", exit: "stuck", message: "2 reports merged; stuck here", start: 15,
			totalsKey: report.Totals{Specs: 3, Verified: 2, Stuck: 1, Rotations: 100, CostUSD: 4},
		},
		{
			name:  "a tie goes to the later input",
			in:    []*report.Report{shard(10, "done", "a:pending"), shard(10, "done", "a:verified")},
			specs: "a:verified:20", exit: "done", message: "2 reports merged; done here", start: 5,
			totalsKey: report.Totals{Specs: 1, Verified: 1, Rotations: 20, CostUSD: 2},
		},
		{
			name:  "one report is kept as it is",
			in:    []*report.Report{shard(10, "awaiting_human", "a:awaiting")},
			specs: "a:awaiting:10", exit: "awaiting_human", message: "awaiting_human here", start: 5,
			totalsKey: report.Totals{Specs: 1, Awaiting: 1, Rotations: 10, CostUSD: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := reporters.Merge(tc.in...)
			if err != nil {
				t.Fatal(err)
			}
			var specs []string
			for _, s := range got.Specs {
				specs = append(specs, s.Path+":"+s.Outcome+":"+strconv.Itoa(len(s.Rotations)))
			}
			if strings.Join(specs, " ") != tc.specs {
				t.Errorf("specs %v, want %s", specs, tc.specs)
			}
			if got.Exit.Class != tc.exit || got.Exit.Message != tc.message {
				t.Errorf("exit %+v, want class %s message %q", got.Exit, tc.exit, tc.message)
			}
			if got.Totals != tc.totalsKey {
				t.Errorf("totals %+v, want %+v", got.Totals, tc.totalsKey)
			}
			if want := reportstest.Start.Add(time.Duration(tc.start) * time.Minute); !got.StartedAt.Equal(want) {
				t.Errorf("started_at %v, want %v", got.StartedAt, want)
			}
		})
	}
}

// TestMergeShards: a spec run in a shard and again in the integration is
// one spec whose rotations, cost, duration and shards add up, and whose
// total rotations (a count over all runs) is the highest reported.
func TestMergeShards(t *testing.T) {
	a, integ := shard(10, "done", "specs/a.spec.md:verified"), shard(12, "done", "specs/a.spec.md:verified", "specs/b.spec.md:verified")
	a.Specs[0].Shards, a.Specs[0].DurationSeconds, a.Specs[0].TotalRotations = []string{"1-of-2"}, 4, 10
	integ.Specs[0].Shards, integ.Specs[0].DurationSeconds, integ.Specs[0].TotalRotations = []string{"1-of-2", "integration"}, 1.5, 22
	got, err := reporters.Merge(a, integ)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Specs[0]
	if len(got.Specs) != 2 || len(s.Rotations) != 22 || s.CostUSD != 2 || s.DurationSeconds != 5.5 || s.TotalRotations != 22 ||
		strings.Join(s.Shards, ",") != "1-of-2,integration" {
		t.Fatalf("merged spec %s: %d rotations, $%v, %vs, %d in all, shards %v; want 22, $2, 5.5s, 22, 1-of-2,integration",
			s.Path, len(s.Rotations), s.CostUSD, s.DurationSeconds, s.TotalRotations, s.Shards)
	}
	if got.Totals.Rotations != 34 || got.Totals.CostUSD != 3 {
		t.Fatalf("totals %+v, want 34 rotations and $3 (10 + 12 + 12)", got.Totals)
	}
}

func TestWorseExit(t *testing.T) {
	order := append([]string{}, reporters.ExitSeverity...)
	// An unknown class ranks between usage and failure.
	order = append(order[:len(order)-1], "exit_42", "failure")
	for i := 1; i < len(order); i++ {
		worse, better := report.Exit{Class: order[i]}, report.Exit{Class: order[i-1]}
		if !reporters.WorseExit(worse, better) || reporters.WorseExit(better, worse) {
			t.Errorf("%s should be worse than %s", order[i], order[i-1])
		}
	}
}

func TestMergeErrors(t *testing.T) {
	future := shard(1, "done")
	future.Version = 2
	check := shard(1, "done")
	check.Command = "check"
	tests := []struct {
		name string
		in   []*report.Report
		want string
	}{
		{"nothing", nil, "no report to merge"},
		{"nil", []*report.Report{shard(1, "done"), nil}, "report 2 is missing"},
		{"version", []*report.Report{future}, "report 1 has version 2"},
		{"commands", []*report.Report{shard(1, "done"), check}, `report 2 is of "check", report 1 of "run"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := reporters.Merge(tc.in...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestMergeSpend: a matrix's reports add up their spend. Every job's run
// sums; the pull request's counts each rotation once (the shards start
// from one state, $1.00 and 100 tokens, and the integration folds
// theirs); the day's is the last read; the stops are all kept; a spec's
// spend over all runs is the highest reported; reports without spend
// (check's) count for nothing.
func TestMergeSpend(t *testing.T) {
	amount := func(usd float64, tokens int64) report.Amount { return report.Amount{USD: usd, Tokens: tokens} }
	withSpend := func(r *report.Report, run, pr report.Amount, day float64, stops ...string) *report.Report {
		r.Spend = &report.Spend{Run: run, PullRequest: pr}
		if day > 0 {
			r.Spend.Day = &report.Amount{USD: day}
		}
		for _, k := range stops {
			r.Spend.Stops = append(r.Spend.Stops, report.CapStop{Key: k})
		}
		return r
	}
	shards := func() []*report.Report {
		one := withSpend(shard(10, "done", "a:verified"), amount(0.50, 50), amount(1.50, 150), 3)
		one.Specs[0].Spend = &report.Amount{USD: 0.75, Tokens: 70}
		two := withSpend(shard(11, "limits", "b:pending"), amount(0.25, 20), amount(1.25, 120), 0, "budgets.per_spec")
		return []*report.Report{one, two}
	}
	integration := withSpend(shard(12, "done", "a:verified"), amount(0.10, 10), amount(1.85, 180), 4, "budgets.per_rotation")
	integration.Specs[0].Spend = &report.Amount{USD: 0.85, Tokens: 80}
	check := shard(13, "done") // check: no spend

	for _, tc := range []struct {
		name    string
		in      []*report.Report
		run, pr report.Amount
		day     float64
		stops   string
		specA   report.Amount
	}{
		{"shards", shards(), amount(0.75, 70), amount(1.75, 170), 3, "budgets.per_spec", amount(0.75, 70)},
		{"shards and the integration", append(shards(), integration, check), amount(0.85, 80), amount(1.85, 180), 4, "budgets.per_spec budgets.per_rotation", amount(0.85, 80)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := reporters.Merge(tc.in...)
			if err != nil {
				t.Fatal(err)
			}
			sp := got.Spend
			near := func(a, b report.Amount) bool { return a.Tokens == b.Tokens && a.USD > b.USD-1e-9 && a.USD < b.USD+1e-9 }
			if sp == nil || !near(sp.Run, tc.run) || !near(sp.PullRequest, tc.pr) || sp.Day == nil || sp.Day.USD != tc.day {
				t.Fatalf("spend %+v, want run %+v, pull request %+v, day $%v", sp, tc.run, tc.pr, tc.day)
			}
			if want := fmt.Sprintf("$%.4f", tc.pr.USD); sp.PullRequest.Text != want {
				t.Errorf("pull request's text %q, want %q", sp.PullRequest.Text, want)
			}
			var stops []string
			for _, s := range sp.Stops {
				stops = append(stops, s.Key)
			}
			if strings.Join(stops, " ") != tc.stops {
				t.Errorf("stops %v, want %s", stops, tc.stops)
			}
			if a := got.Specs[0]; a.Spend == nil || !near(*a.Spend, tc.specA) {
				t.Errorf("spec a's spend %+v, want %+v", a.Spend, tc.specA)
			}
		})
	}
	if got, _ := reporters.Merge(check, shard(14, "done")); got.Spend != nil {
		t.Errorf("reports without spend merged into %+v, want none", got.Spend)
	}
}
