package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// claimWatch prepares the judgement of a rotation before its agent runs:
// it records the verifier guard's baseline when the stage starts (saved
// at once, so a crash cannot lose it) and returns the phrases the output
// must be scanned for: the promise, the negative patterns of the method
// and the contradiction phrases.
func (e *engine) claimWatch(sp plan.Spec, stage plan.Stage, ss *state.SpecState) []string {
	if e.baselineVerifier(sp, stage, ss) {
		if err := state.Save(e.dir, e.st); err != nil {
			e.log.Warn().Err(err).Msg("verifier guard: could not save the baseline")
		}
	}
	w := verify.Watch(stage.Criteria.Promise, stage.Criteria.VerificationConfig)
	return append(w, e.opts.Project.Config.Layers.ContradictionPhrases...)
}

// verdictOf judges a rotation: layers 1 and 2 and the promise (judge),
// the verifier guard, the stage's verification method, then the artifact
// review (layer 3). An error only means ctx was cancelled: the rotation
// is then left to be run again.
func (e *engine) verdictOf(ctx context.Context, sp plan.Spec, ss *state.SpecState, stage plan.Stage, status agent.Status, res agent.Result, changed []string, history string) (verdict, error) {
	cfg := e.opts.Project.Config
	if ss.TaskKey != sp.Hash {
		ss.TaskKey, ss.TaskIndex, ss.TaskStage = sp.Hash, 0, ""
		clearReview(ss)
	}
	if sp.Front == nil || sp.Front.Completion == nil {
		if ss.Rotations == 0 {
			e.log.Warn().Str("spec", sp.Path).Str("method", stage.Criteria.VerificationMethod).Msg("spec has no completion spec: using the default criteria of each stage")
		}
	}
	v, ok := judge(status, res.Report, stage, cfg.Layers.ContradictionPhrases)
	if strings.HasPrefix(v.Reason, contradictionLog) {
		e.log.Warn().Str("spec", sp.Path).Msg(contradictionLog)
	}
	tampered := e.tamperedVerifier(ss)
	if ok && len(ss.VerifierHashes) > 0 {
		if len(tampered) > 0 {
			v.reject("verifier_guard", fmt.Sprintf("the verification files changed since the %s stage started: %s; restore them, or set allow_verifier_changes: true in the spec if the change is intended", stage.Name, strings.Join(tampered, ", ")))
			e.log.Warn().Str("spec", sp.Path).Strs("files", tampered).Msg("verifier guard: claim rejected, the verification files were changed")
			ok = false
		} else {
			v.pass("verifier_guard", "unchanged: "+strings.Join(sortedKeys(ss.VerifierHashes), ", "))
		}
	}
	var transcript *os.File
	defer func() {
		if transcript != nil {
			_ = transcript.Close()
		}
	}()
	open := func() io.Writer {
		if transcript == nil {
			f, err := os.OpenFile(strings.TrimSuffix(history, ".log")+".verify.log", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				e.log.Warn().Err(err).Msg("verification transcript")
				return io.Discard
			}
			transcript = f
		}
		return transcript
	}
	if method := stage.Criteria.VerificationMethod; ok && method != verify.StringMatch {
		log := e.log.With().Str("spec", sp.Path).Str("stage", stage.Name).Str("method", method).Logger()
		out := open()
		in := verify.Input{
			Root: e.root, Promise: stage.Criteria.Promise, Output: res.Report,
			AcceptanceCriteria: acceptanceCriteria(sp), DefaultJudge: cfg.Layers.Judge, Log: log, Transcript: out,
			Judge: verify.AgentJudge{Agents: cfg.Agents, Root: e.root, Transcript: out, Env: []string{"RALPH_SPEC=" + sp.Path, "RALPH_STAGE=" + stage.Name, "RALPH_RUN_ID=" + e.runID}},
		}
		r := verify.Verify(ctx, method, in, stage.Criteria.VerificationConfig)
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		v.Layers = append(v.Layers, methodLayers(method, r)...)
		if !r.Passed {
			v.Status, v.Reason, ok = state.StatusRejected, r.Reason, false
		}
	}
	reviewed := false
	if ok {
		var err error
		if reviewed, ok, err = e.review(ctx, sp, ss, stage, &v, changed, open); err != nil {
			return v, err
		}
	}
	if ok {
		v.Accepted = true
	} else if ss.ReviewIteration > 0 && !reviewed {
		e.fixFailed(sp, ss, &v, res)
	}
	if v.Accepted {
		ss.TaskIndex, ss.TaskStage = ss.TaskIndex+1, stage.Name
	}
	return v, nil
}

// acceptanceCriteria are the spec's completion criteria and those of its
// contracts: what "{{acceptance_criteria}}" stands for.
func acceptanceCriteria(sp plan.Spec) []string {
	var out []string
	if sp.Front != nil && sp.Front.Completion != nil {
		out = append(out, sp.Front.Completion.AcceptanceCriteria...)
	}
	return append(out, sp.AcceptanceCriteria...)
}

// fixFailed handles a fix rotation of a pending review loop that did not
// end in an accepted claim ("Phase agent fails during revision"): a
// rotation that was rejected, stuck, silent or timed out is retried once;
// when the retry fails too, the original implementation is used and the
// spec proceeds as if its reviewed claim had been accepted.
func (e *engine) fixFailed(sp plan.Spec, ss *state.SpecState, v *verdict, res agent.Result) {
	failed := res.TimedOut || v.Status == state.StatusRejected || v.Status == state.StatusStuck || v.Status == state.StatusNone
	if !failed {
		return
	}
	ss.ReviewFixFailures++
	if ss.ReviewFixFailures < 2 {
		note := fmt.Sprintf("the review fix failed, retrying once (review iteration %d)", ss.ReviewIteration)
		if v.Reason != "" {
			note = v.Reason + "; " + note
		}
		v.Reason = note
		return
	}
	msg := "the review fix failed twice: proceeding with the original implementation"
	e.log.Warn().Str("spec", sp.Path).Msg(msg)
	e.progressLog(sp, fmt.Sprintf("\n%s (task %d).\n", strings.ToUpper(msg[:1])+msg[1:], ss.TaskIndex))
	v.Accepted = true
	v.Layers = append(v.Layers, reportersLayer("review", true, msg))
	clearReview(ss)
}

func clearReview(ss *state.SpecState) {
	ss.ReviewIteration, ss.ReviewFindings, ss.ReviewFixFailures = 0, "", 0
}
