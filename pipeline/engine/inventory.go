package engine

import (
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// inventory takes the stage's test inventory when it starts: it runs once
// each of the stage's external verification commands whose tests ralph-ci
// reads (cfgs, layers.Reporting: a test report, a runner's preset, or a
// collection step, verify.Inventory) and returns the tests the reports show
// running (layers.Inventory); nil when none names a report.
func (e *engine) inventory(ctx context.Context, sp plan.Spec, stage plan.Stage, cfgs []schema.VerificationConfig) []string {
	if len(cfgs) == 0 {
		return nil
	}
	var run verify.TestRun
	for _, cfg := range cfgs {
		run = run.Merge(verify.Inventory(ctx, verify.Input{Root: e.root, Log: e.log, Host: e.opts.Host}, cfg))
	}
	inv := layers.Inventory(run)
	log := e.log.Info()
	if !run.Found {
		log = e.log.Warn()
	}
	log.Str("spec", sp.Path).Str("stage", stage.Name).Int("tests", len(inv)).Bool("report", run.Found).Msg("test inventory: the tests that must run and pass on every claim of the stage")
	return inv
}
