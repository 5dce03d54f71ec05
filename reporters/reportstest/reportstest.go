// Package reportstest builds the reports the reporters' tests share: one
// run with a spec of every outcome (verified, stuck, failed, pending,
// awaiting), fixed timestamps, and text that needs escaping (control
// characters, ANSI colours, Markdown and XML markup, workflow-command
// separators).
package reportstest

import (
	"fmt"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// Start is when the sample run started; it finished ten minutes later.
var Start = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// Report is a run of five specs, one per outcome, that ended with exit
// class stuck. Every field of every type of the report model is set
// (non-zero) somewhere in it, so a schema test over it covers them all.
func Report() *report.Report {
	specs := []report.Spec{
		{
			Path: "PROMPT.md", Key: "PROMPT-1a2b3c", Title: "Root prompt", Tier: "auto",
			Outcome: report.SpecVerified, Counter: 3, Stage: "reviewer", TotalRotations: 5, Shards: []string{"1-of-2", "integration"},
			Rotations: []report.Rotation{
				rot(1, "coder", "DONE", 1, []string{"main.go", "main_test.go"}, 61.5, 0.12),
				rot(2, "coder", "DONE", 2, nil, 30, 0.08),
				rot(3, "reviewer", "DONE", 3, nil, 12.25, 0.05),
			},
		},
		{
			Path: "specs/api/auth.spec.md", Key: "auth-4d5e6f", Title: "JWT authentication", Tier: "auto",
			Outcome: report.SpecStuck, Reason: "returned STUCK 3 times in a row: \x1b[31mcannot reach db\x1b[0m\x00",
			Counter: 0, Stage: "coder", TotalRotations: 3,
			Rotations: []report.Rotation{
				rot(4, "coder", "STUCK", 0, nil, 5, 0),
				rot(5, "coder", "STUCK", 0, nil, 5, 0),
				rot(6, "coder", "STUCK", 0, nil, 5, 0),
			},
		},
		{
			Path: "specs/api/users.spec.md", Key: "users-0a0b0c", Title: "Users API", Tier: "auto",
			Outcome: report.SpecFailed, Reason: "out of iterations: coder 2/2",
			Counter: 1, Stage: "coder", TotalRotations: 2,
			Rotations: []report.Rotation{
				rot(7, "coder", "DONE", 1, []string{"users.go"}, 40, 0.2),
				rot(8, "coder", "CONTINUE", 1, []string{"users.go"}, 40, 0.2),
			},
		},
		{
			Path: "specs/web/ui.spec.md", Key: "ui-777777", Title: "UI: <b>forms</b> | tables, 100% done?", Tier: "auto",
			Outcome: report.SpecPending, Counter: 1, Stage: "coder", TotalRotations: 1,
			Rotations: []report.Rotation{rot(9, "coder", "DONE", 1, []string{"ui.tsx"}, 20, 0.1)},
		},
		{
			Path: ".ralph/specs/billing.spec.md", Key: "billing-abcdef", Title: "Billing", Tier: "verify",
			Outcome: report.SpecAwaiting, Counter: 3, Stage: "coder", TotalRotations: 3,
			Rotations: []report.Rotation{},
			Checkpoint: &report.Checkpoint{Status: "skipped", SHA: "0123456789abcdef0123456789abcdef01234567", RejectionCount: 3,
				RejectionLog: []report.Rejection{{Attempt: 3, Feedback: "totals <b>round</b> wrong", Classification: "implementation_gap", ActionTaken: "sent back to work"}},
				Text:         "ESCALATION -- Billing\n", Note: "Verification skipped by user. Mismatch acknowledged and deferred.",
				Skip: "Verification skipped by user. Mismatch acknowledged and deferred."},
		},
	}
	// A rejected claim: the agent said DONE, verification said no.
	rejected := &specs[2].Rotations[1]
	rejected.AgentStatus, rejected.Status, rejected.Claimed, rejected.Accepted = "DONE", "REJECTED", true, false
	rejected.Reason = "claim not verified:\nexternal: go test ./users/... exited 1\r\n--- FAIL: TestList"
	rejected.ExitCode, rejected.TimedOut = 1, true
	rejected.Layers = append(rejected.Layers, report.Layer{Name: "external", Passed: false, Detail: "exit status 1, want 0"})
	// The stages of a multi_stage verification, as the engine records them.
	rejected.Layers = append(rejected.Layers,
		report.Layer{Name: "multi_stage/unit_tests", Passed: true},
		report.Layer{Name: "multi_stage/no_regressions", Passed: false, Detail: "Command exited with 1, expected 0"})

	for i := range specs {
		s := &specs[i]
		for _, r := range s.Rotations {
			s.CostUSD += r.CostUSD
			s.DurationSeconds += r.DurationSeconds
		}
	}
	r := &report.Report{
		Version:    report.Version,
		Tool:       report.Tool{Name: "ralph-ci", Version: "v1.0.0-test"},
		Command:    "run",
		StartedAt:  Start,
		FinishedAt: Start.Add(10 * time.Minute),
		Exit:       report.Exit{Code: 4, Class: "stuck", Message: "stuck: [specs/api/auth.spec.md]"},
		Specs:      specs,
	}
	r.Totals = report.ComputeTotals(r.Specs)
	return r
}

// rot is a rotation whose claim, when it said DONE, was accepted.
func rot(iteration int, stage, status string, counter int, changed []string, seconds, cost float64) report.Rotation {
	done := status == "DONE"
	r := report.Rotation{
		Iteration: iteration, Stage: stage, Agent: "claude", AgentStatus: status, Status: status,
		Claimed: done, Accepted: done, Counter: counter, ChangedFiles: changed,
		DurationSeconds: seconds, CostUSD: cost, CostKnown: cost > 0,
		Log:         fmt.Sprintf(".ralph/history/%s/%03d.log", stage, iteration),
		PromptBytes: 4000 + 100*iteration,
	}
	if r.CostKnown { // a CLI that reports its cost reports its tokens
		r.InputTokens, r.OutputTokens = int64(1000*iteration), 250
	}
	if r.ChangedFiles == nil {
		r.ChangedFiles = []string{}
	}
	if done {
		r.Layers = []report.Layer{{Name: "signal", Passed: true}, {Name: "string_match", Passed: true}}
	}
	return r
}
