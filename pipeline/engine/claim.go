package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"
)

// claimWatch prepares the judgement of a rotation before its agent runs:
// it records the verifier guard's baseline when the stage starts (saved
// at once, so a crash cannot lose it) and returns the phrases the output
// must be scanned for: the promise and the negative patterns of the
// method. (Contradictions are read from the final message's tail.)
func (e *engine) claimWatch(ctx context.Context, sp plan.Spec, stage plan.Stage, ss *state.SpecState) []string {
	if e.baselineVerifier(ctx, sp, stage, ss) {
		if err := state.Save(e.dir, e.st); err != nil {
			e.log.Warn().Err(err).Msg("verifier guard: could not save the baseline")
		}
	}
	return verify.Watch(stage.Criteria.Promise, stage.Criteria.VerificationConfig)
}

// claimRules are what the claim layers read from the config and the
// spec's state: the admissions heard, and the last rejection reason, which
// the agent may quote back without admitting anything.
func claimRules(cfg schema.Layers, ss state.SpecState) layers.Rules {
	more := layers.MoreAdmissions
	if cfg.Admissions != nil {
		more = *cfg.Admissions
	}
	return layers.Rules{
		Admissions: append(append([]string{}, cfg.ContradictionPhrases...), more...),
		Echoes:     []string{ss.Reason},
	}
}

// judgement is a rotation's verdict with everything else its judging
// found: together, all the changes it asks of the spec's state, which
// apply makes.
type judgement struct {
	layers.Verdict
	// restart tells that the spec changed since its tasks began: its task
	// count and review loop start over.
	restart bool
	// seen are the guarded files' hashes after the rotation (nil when the
	// spec guards none).
	seen map[string]string
	// tests are the stage's tests that passed so far, when the
	// verification produced a test report that held.
	tests []string
}

// verdictOf judges a rotation: contradiction, signal and promise
// (layers.Claim), the verifier guard (changed verifiers, tests that stop
// others), markers of unfinished work, the stage's verification method and
// its test report, then the artifact review; a rotation that left a git
// state ralph-ci does not commit through (gitLeft) is rejected with it,
// unjudged. It reads ss and never changes it. An error
// only means ctx was cancelled: the rotation is then left to be run again.
func (e *engine) verdictOf(ctx context.Context, sp plan.Spec, ss state.SpecState, stage plan.Stage, status status.Status, res agent.Result, changed []string, history, gitLeft string) (judgement, error) {
	cfg := e.opts.Project.Config
	var j judgement
	if ss.TaskKey != sp.Hash {
		j.restart = true
		ss.StartTasks(sp.Hash) // on the copy judged here; apply does it for real
	}
	if sp.Front == nil || sp.Front.Completion == nil {
		if ss.Rotations == 0 {
			e.log.Warn().Str("spec", sp.Path).Str("method", stage.Criteria.VerificationMethod).Msg("spec has no completion spec: using the default criteria of each stage")
		}
	}
	v, ok := layers.Claim(status, res.Report, stage, claimRules(cfg.Layers, ss))
	if gitLeft != "" { // whatever it claimed: nothing is committed through that state
		v.Reject("git_state", gitLeft)
		j.Verdict = v
		return j, nil
	}
	if strings.HasPrefix(v.Reason, layers.ContradictionLog) {
		e.log.Warn().Str("spec", sp.Path).Msg(layers.ContradictionLog)
	}
	j.seen, ok = e.guardVerdict(ctx, &v, ok, sp, stage, ss)
	transcript := &lazyFile{path: strings.TrimSuffix(history, ".log") + ".verify.log", e: e}
	defer transcript.close()
	if method := stage.Criteria.VerificationMethod; ok && method != verify.StringMatch {
		log := e.log.With().Str("spec", sp.Path).Str("stage", stage.Name).Str("method", method).Logger()
		out := transcript.writer()
		in := verify.Input{
			Root: e.root, Promise: stage.Criteria.Promise, Output: res.Report,
			AcceptanceCriteria: layers.AcceptanceCriteria(sp), DefaultJudge: cfg.Layers.Judge, Log: log, Transcript: out,
			Judge: verify.AgentJudge{Agents: cfg.Agents, Root: e.root, Transcript: out, Env: []string{"RALPH_SPEC=" + sp.Path, "RALPH_STAGE=" + stage.Name, "RALPH_RUN_ID=" + e.runID}},
		}
		r := verify.Verify(ctx, method, in, stage.Criteria.VerificationConfig)
		if ctx.Err() != nil {
			return j, ctx.Err()
		}
		if ok = v.Method(method, r); ok {
			if ok = v.TestRun(ss.VerifierTests, stage.Criteria.RetireTests, r.Tests); ok && r.Tests.Found {
				j.tests = layers.PassedSince(ss.VerifierTests, r.Tests)
			}
		}
	}
	reviewed := false
	if ok {
		var err error
		if reviewed, ok, err = e.review(ctx, sp, ss, stage, &v, changed, transcript.writer); err != nil {
			return j, err
		}
	}
	if ok {
		v.Accepted = true
	} else if ss.ReviewIteration > 0 && !reviewed && v.FixFailed(res.TimedOut, ss.ReviewIteration, ss.ReviewFixFailures) {
		e.log.Warn().Str("spec", sp.Path).Msg(layers.FixGaveUp)
		e.progressLog(sp, fmt.Sprintf("\n%s (task %d).\n", strings.ToUpper(layers.FixGaveUp[:1])+layers.FixGaveUp[1:], ss.TaskIndex))
	}
	j.Verdict = v
	return j, nil
}

// guardVerdict runs the verifier guard and the unfinished-work layer on a
// claim that held so far (ok): it returns the guarded items' hashes after
// the rotation, for the state, and whether the claim still holds.
func (e *engine) guardVerdict(ctx context.Context, v *layers.Verdict, ok bool, sp plan.Spec, stage plan.Stage, ss state.SpecState) (map[string]string, bool) {
	now, stops := e.guardAfter(sp, stage, ss)
	if !ok {
		return now, false
	}
	if !v.Guard(stage.Name, ss.VerifierHashes, now) {
		e.log.Warn().Str("spec", sp.Path).Strs("files", layers.Differing(ss.VerifierHashes, layers.Restrict(now, ss.VerifierHashes))).Msg("verifier guard: claim rejected, the verification files were changed")
		return now, false
	}
	if !v.NewTests(stops) {
		e.log.Warn().Str("spec", sp.Path).Msg("verifier guard: claim rejected, a new test file can stop the existing tests")
		return now, false
	}
	if markers := e.opts.Project.Config.Layers.UnfinishedMarkers; len(markers) > 0 && ss.VerifierTree != "" {
		if added := loopAdded(ctx, e.root, ss.VerifierTree); len(added) > 0 {
			return now, v.Unfinished(layers.Unfinished(added, markers))
		}
	}
	return now, true
}

// lazyFile is the verification transcript, created on first use.
type lazyFile struct {
	path string
	e    *engine
	f    *os.File
}

func (l *lazyFile) writer() io.Writer {
	if l.f == nil {
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			l.e.log.Warn().Err(err).Msg("verification transcript")
			return io.Discard
		}
		l.f = f
	}
	return l.f
}

func (l *lazyFile) close() {
	if l.f != nil {
		_ = l.f.Close()
	}
}
