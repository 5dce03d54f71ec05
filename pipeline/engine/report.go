package engine

import (
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/spend"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// record adds one rotation to the run's report.
func (e *engine) record(sp plan.Spec, stage plan.Stage, agentName string, iteration int, res agent.Result, raw status.Status, v layers.Verdict, ss *state.SpecState, changed []string, history string) {
	if e.rotations == nil {
		e.rotations = map[string][]report.Rotation{}
	}
	e.rotations[sp.Path] = append(e.rotations[sp.Path], report.Rotation{
		Iteration: iteration, Stage: stage.Name, Agent: agentName,
		AgentStatus: string(raw), Status: string(v.Status), Claimed: v.Claimed, Accepted: v.Accepted, Reason: v.Reason,
		Counter: ss.DoneCount, ChangedFiles: append([]string{}, changed...),
		DurationSeconds: res.Duration.Seconds(), CostUSD: res.Usage.CostUSD, CostKnown: res.Usage.CostKnown,
		ExitCode: res.ExitCode, TimedOut: res.TimedOut, Log: e.relToRoot(history), Layers: v.Layers,
		PromptBytes: e.promptBytes, InputTokens: res.Usage.Tokens.Input, OutputTokens: res.Usage.Tokens.Output,
		Spend: new(reportAmount(e.lastSpend)), StoppedBy: e.lastStop, Judge: e.lastJudge,
	})
}

// report builds the run's report from the final state, the checkpoints
// included, with its totals summed by report.ComputeTotals.
func (e *engine) report() *report.Report {
	r := &report.Report{
		Version: report.Version, Tool: report.Tool{Name: "ralph-ci", Version: e.opts.Version},
		Command: "run", StartedAt: e.started.UTC(), FinishedAt: time.Now().UTC(),
		Exit: report.Exit{Code: int(e.outcome.Code), Class: e.outcome.Code.Class(), Message: e.outcome.Message},
	}
	saved := e.st.ByPath()
	for _, sp := range e.specs {
		s := report.Spec{Path: sp.Path, Key: sp.Key, Title: sp.Title, Tier: sp.Tier, Rotations: e.rotations[sp.Path], Outcome: report.SpecPending}
		if s.Rotations == nil {
			s.Rotations = []report.Rotation{}
		}
		if len(sp.Stages) > 0 {
			s.Stage = sp.Stages[0].Name
		}
		if ss := saved[sp.Path]; ss != nil {
			s.Counter, s.TotalRotations, s.Reason = ss.DoneCount, ss.Rotations, ss.Reason
			if ss.Spend != (spend.Amount{}) {
				s.Spend = new(reportAmount(ss.Spend))
			}
			if ss.Stage != "" {
				s.Stage = ss.Stage
			}
			switch {
			case ss.Stuck():
				s.Outcome, s.Reason = report.SpecStuck, ss.Excluded
			case ss.Excluded != "":
				s.Outcome, s.Reason = report.SpecFailed, ss.Excluded
			case ss.Verified(sp.Hash) && sp.Tier == plan.TierVerify:
				s.Outcome = report.SpecAwaiting
			case ss.Verified(sp.Hash):
				s.Outcome = report.SpecVerified
			}
		}
		s.Shards = e.shardsOf(sp.Path, len(s.Rotations) > 0)
		for _, rot := range s.Rotations {
			s.CostUSD += rot.CostUSD
			s.DurationSeconds += rot.DurationSeconds
		}
		r.Specs = append(r.Specs, s)
	}
	e.reportCheckpoints(r)
	r.Spend = e.spendReport()
	r.Totals = report.ComputeTotals(r.Specs)
	return r
}

// shardsOf are the jobs of a CI matrix a spec ran in, for the report: the
// shard this run is, else the one the integrated state names, and the
// integration when it ran the spec.
func (e *engine) shardsOf(path string, ran bool) []string {
	var out []string
	if e.opts.Shard != "" {
		return []string{e.opts.Shard}
	}
	if ss := e.st.Spec(path); ss != nil && ss.Shard != "" {
		out = append(out, ss.Shard)
	}
	if e.opts.Integration && ran {
		out = append(out, "integration")
	}
	return out
}
