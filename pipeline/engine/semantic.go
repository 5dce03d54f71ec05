package engine

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// judgeTimeout bounds one run of the semantic judge (the agent's own
// timeout when shorter): a small model answering one prompt.
const judgeTimeout = 5 * time.Minute

// judgeRun is one run of the semantic judge: what it spent goes to the
// spend of the rotation it judged, and to the report.
type judgeRun struct {
	agent, model string
	res          agent.Result
	verdict      string // VERIFIED, NOT_VERIFIED or "no answer"
}

// semanticJudge is the semantic judge of the claims of agent name, or
// why none runs ("" when layers.semantic_judge is off, or the stage's
// method is semantic: its own judge stood for it).
func (e *engine) semanticJudge(name string, stage plan.Stage) (schema.Agent, string, string) {
	cfg := e.opts.Project.Config.Layers.SemanticJudge
	a, ok := e.opts.Project.Config.Agents[name]
	if !cfg.Enabled || !ok || stage.Criteria.VerificationMethod == verify.Semantic {
		return a, "", ""
	}
	judge, model, err := agent.JudgeAgent(a, cfg.Model)
	if err != nil {
		if a.Format != "text" && a.Format != "" {
			e.log.Debug().Str("agent", name).Err(err).Msg("no semantic judge for this agent")
		}
		return a, "", ""
	}
	if t := a.Timeout.Std(); t <= 0 || t > judgeTimeout {
		judge.Timeout = schema.Duration(judgeTimeout)
	}
	return judge, model, fmt.Sprintf("%s, agent %s", model, name)
}

// runSemantic runs the semantic judge on the rotation's claim, writing
// its output to out: its answer, or why it gave none.
func (e *engine) runSemantic(ctx context.Context, sp plan.Spec, ss state.SpecState, stage plan.Stage, name string, judge schema.Agent, final string, out io.Writer) (answer, failed string, res agent.Result) {
	prompt := layers.SemanticPrompt(layers.SemanticInput{
		Criteria: sp.AllAcceptanceCriteria(),
		Diff:     judgeDiff(ctx, e.root, ss.VerifierTree, e.scanTree),
		Final:    final,
	})
	fmt.Fprintf(out, "\n--- semantic judge %s (%s) ---\n", name, judge.Model)
	env := []string{"RALPH_SPEC=" + sp.Path, "RALPH_STAGE=" + stage.Name, "RALPH_JUDGE=1", "RALPH_JUDGE_MODEL=" + judge.Model, "RALPH_RUN_ID=" + e.runID}
	start := agent.Start{Name: name + " (semantic judge)", Agent: judge, Dir: e.root, Env: env, Prompt: prompt, Output: out, Host: e.opts.Host}
	res, err := agent.Configured(ctx, start)
	if ferr := start.Failed(res, err); ferr != nil {
		return "", ferr.Error(), res
	}
	if strings.TrimSpace(res.Tail) == "" {
		return "", "an empty answer", res
	}
	return res.Tail, "", res
}

// judgeDiff is the loop's diff since tree (the stage's start) as the
// judge reads it ([layers.DiffSummary]); "" when git cannot tell.
func judgeDiff(ctx context.Context, root, tree string, read func(rel string, limit int64) ([]byte, error)) string {
	if tree == "" {
		return ""
	}
	stat, err := git(ctx, root, "diff", "--stat=120", "--no-color", "--no-ext-diff", tree, "--")
	if err != nil {
		return ""
	}
	diff, _ := git(ctx, root, "diff", "-U2", "--no-color", "--no-ext-diff", "--no-renames", tree, "--")
	untracked := map[string]string{}
	others, _ := git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
	for _, rel := range strings.Split(string(others), "\x00") {
		if rel == "" || strings.HasPrefix(rel, ".ralph/") || len(untracked) >= 50 {
			continue
		}
		b, err := read(rel, safefile.SourceLimit)
		if err != nil || strings.IndexByte(string(b), 0) >= 0 {
			untracked[rel] = "(binary or unreadable)"
			continue
		}
		untracked[rel] = string(b)
	}
	return layers.DiffSummary(string(stat), string(diff), untracked)
}

// settleJudge counts the semantic judge's spend in every scope (the
// rotation's included) and returns it for the report.
func (e *engine) settleJudge(ctx context.Context, ss *state.SpecState, j *judgeRun) *report.Judge {
	if j == nil {
		return nil
	}
	amount := e.spend.table.Of(j.res.Usage, j.model)
	e.spend.run = e.spend.run.Add(amount)
	ss.Spend = ss.Spend.Add(amount)
	e.st.Spend = e.st.Spend.Add(amount)
	e.lastSpend = e.lastSpend.Add(amount)
	e.outcome.CostUSD += j.res.Usage.CostUSD
	if l := e.spend.ledger; l != nil {
		if day, err := l.Settle(ctx, amount); err != nil {
			e.log.Warn().Err(err).Msg("could not record the semantic judge's spend in the day's ledger")
		} else {
			e.spend.day = &day
		}
	}
	return &report.Judge{
		Agent: j.agent, Model: j.model, Verdict: j.verdict,
		CostUSD: j.res.Usage.CostUSD, CostKnown: j.res.Usage.CostKnown,
		InputTokens: j.res.Usage.Tokens.Input, OutputTokens: j.res.Usage.Tokens.Output,
		DurationSeconds: j.res.Duration.Seconds(), Spend: new(reportAmount(amount)),
	}
}

// judgeVerdict is how the report names the judge's answer.
func judgeVerdict(answer, failed string) string {
	if failed != "" {
		return "no answer"
	}
	switch ok, _, err := verify.ParseJudge(answer); {
	case err != nil:
		return "no answer"
	case ok:
		return "VERIFIED"
	}
	return "NOT_VERIFIED"
}
