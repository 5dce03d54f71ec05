package engine

import (
	"context"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
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
func claimRules(cfg schema.Layers, own layers.Words, sp plan.Spec, ss state.SpecState) layers.Rules {
	more := layers.MoreAdmissions()
	if cfg.Admissions != nil {
		more = *cfg.Admissions
	}
	headings := layers.DefaultOpenHeadings()
	if cfg.OpenWorkHeadings != nil {
		headings = *cfg.OpenWorkHeadings
	}
	var criteria []string
	if cfg.CriteriaReport {
		criteria = sp.AllAcceptanceCriteria()
	}
	return layers.Rules{
		Admissions: append(append(append([]string{}, cfg.ContradictionPhrases...), more...), own.Phrases...),
		Echoes:     []string{ss.Reason},
		Headings:   append(append([]string{}, headings...), own.Headings...),
		Criteria:   criteria,
	}
}

// judgement is a rotation's verdict with what else its judging found:
// together, all the changes it asks of the spec's state, which apply
// makes.
type judgement struct {
	layers.Verdict
	// restart tells that the spec changed since its tasks began: its task
	// count and review loop start over.
	restart bool
	// seen are the guarded files' hashes after the rotation (nil when the
	// spec guards none).
	seen map[string]string
	// tree is the tree id of the work tree the stage's verification
	// method judged ("" when none ran, or nothing delivers): what the
	// rotation's commit holds, whatever changes after.
	tree string
	// judge is the semantic judge's run, when one ran: its spend is
	// settled with the rotation's.
	judge *judgeRun
}

// verdictOf judges a rotation: it gathers the facts (layers.Facts) and
// asks layers.Judge, which holds the order of the layers; the facts that
// cost a process (the loop's diff, the stage's verification method, the
// reviewer) are gathered when Judge asks for them. gitLeft is the git
// state the rotation left that ralph-ci does not commit through ("" none).
// It reads ss and never changes it. An error means ctx was cancelled, or
// the tree to verify could not be recorded: the rotation is then left to
// be run again.
func (e *engine) verdictOf(ctx context.Context, sp plan.Spec, ss state.SpecState, stage plan.Stage, agentName string, st status.Status, res agent.Result, changed []string, history, gitLeft string) (judgement, error) {
	var j judgement
	if ss.TaskKey != sp.Hash {
		j.restart = true
		ss.StartTasks(sp.Hash) // on the copy judged here; apply does it for real
	}
	if (sp.Front == nil || sp.Front.Completion == nil) && ss.Rotations == 0 {
		e.log.Warn().Str("spec", sp.Path).Str("method", stage.Criteria.VerificationMethod).Msg("spec has no completion spec: using the default criteria of each stage")
	}
	f := e.facts(sp, ss, stage, st, res)
	f.GitLeft = gitLeft
	judge, model, judgeName := e.semanticJudge(agentName, stage)
	f.Semantic.Judge = judgeName
	if gitLeft == "" {
		j.seen = f.Now
	}
	transcript := &lazyFile{path: strings.TrimSuffix(history, ".log") + ".verify.log", e: e}
	defer transcript.close()
	for {
		v := layers.Judge(f)
		switch v.Need {
		case layers.NeedAdded:
			f.Added, f.Where = loopAdded(ctx, e.root, ss.VerifierTree, e.scanTree)
			f.Tamper.Modules = runModules(stage, e.scanTree)
		case layers.NeedMethod:
			tree, err := e.recordTree(ctx, changed)
			if err != nil {
				return j, err
			}
			j.tree = tree
			r := e.verifyStage(ctx, sp, stage, res, transcript.writer())
			if ctx.Err() != nil {
				return j, ctx.Err()
			}
			f.Method = &r
		case layers.NeedSemantic:
			answer, failed, jres := e.runSemantic(ctx, sp, ss, stage, agentName, judge, res.Tail, transcript.writer())
			if ctx.Err() != nil {
				return j, ctx.Err()
			}
			f.Semantic.Answer, f.Semantic.Failed = &answer, failed
			j.judge = &judgeRun{agent: agentName, model: model, res: jres, verdict: judgeVerdict(answer, failed)}
		case layers.NeedReview:
			out, err := e.runReviewer(ctx, sp, ss, stage, f.Review.Reviewer, v.ReviewAt, f.Review.MaxIterations, changed, transcript.writer())
			if ctx.Err() != nil {
				return j, ctx.Err()
			}
			if err != nil {
				e.log.Warn().Str("spec", sp.Path).Str("reviewer", f.Review.Reviewer).Err(err).Msg("the reviewer failed: no review signal")
			}
			f.Review.Output = &out
		default:
			e.tell(sp, v)
			j.Verdict = v
			return j, nil
		}
	}
}

// facts gathers what layers.Judge reads about a rotation, but for the
// facts that cost a process: the claim, the rules of the config, the
// verifier guard's hashes, and the state of the review loop.
func (e *engine) facts(sp plan.Spec, ss state.SpecState, stage plan.Stage, st status.Status, res agent.Result) layers.Facts {
	cfg := e.opts.Project.Config
	now, stops := e.guardAfter(sp, stage, ss)
	rc := cfg.Layers.Review
	return layers.Facts{
		Stage: stage, Status: st, Output: res.Report, TimedOut: res.TimedOut,
		Rules:    claimRules(cfg.Layers, e.words, sp, ss),
		Baseline: ss.VerifierHashes, Now: now, Stops: stops,
		Markers: cfg.Layers.UnfinishedMarkers, CanDiff: ss.VerifierTree != "",
		Inventory: ss.VerifierTests,
		Review: layers.ReviewFacts{
			Enabled: rc.Enabled, Every: rc.Every, MaxIterations: rc.MaxIterations, Reviewer: cfg.ReviewAgent(),
			Task: ss.TaskIndex, PrevStage: ss.TaskStage, Stages: len(sp.Stages),
			Pending: ss.ReviewIteration, FixFailures: ss.ReviewFixFailures,
			ProgressFile: e.relToRoot(e.progressFile(sp)),
		},
	}
}

// verifyStage runs the stage's verification method, writing its
// transcript to out.
func (e *engine) verifyStage(ctx context.Context, sp plan.Spec, stage plan.Stage, res agent.Result, out io.Writer) verify.Result {
	cfg := e.opts.Project.Config
	method := stage.Criteria.VerificationMethod
	log := e.log.With().Str("spec", sp.Path).Str("stage", stage.Name).Str("method", method).Logger()
	in := verify.Input{
		Root: e.root, Promise: stage.Criteria.Promise, Output: res.Report,
		AcceptanceCriteria: sp.AllAcceptanceCriteria(), DefaultJudge: cfg.Layers.Judge, Log: log, Transcript: out, Host: e.opts.Host,
		Judge: verify.AgentJudge{Agents: cfg.Agents, Root: e.root, Transcript: out, Host: e.opts.Host, Env: []string{"RALPH_SPEC=" + sp.Path, "RALPH_STAGE=" + stage.Name, "RALPH_RUN_ID=" + e.runID}},
	}
	return verify.Verify(ctx, method, in, stage.Criteria.VerificationConfig)
}

// tell logs the verdict's notes and appends its progress entries to the
// spec's progress log.
func (e *engine) tell(sp plan.Spec, v layers.Verdict) {
	for _, n := range v.Notes {
		ev := e.log.Debug()
		switch n.Level {
		case layers.NoteInfo:
			ev = e.log.Info()
		case layers.NoteWarn:
			ev = e.log.Warn()
		}
		ev = ev.Str("spec", sp.Path)
		if n.Files != nil {
			ev = ev.Strs("files", n.Files)
		}
		ev.Msg(n.Msg)
	}
	for _, p := range v.Progress {
		e.progressLog(sp, p)
	}
}

// lazyFile is the verification transcript, created on first use.
type lazyFile struct {
	path string
	e    *engine
	f    *os.File
}

func (l *lazyFile) writer() io.Writer {
	if l.f == nil {
		f, err := safefile.OpenUnder(l.e.dir.Path(), l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
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
