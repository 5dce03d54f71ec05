package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/headtail"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/changes"
	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/prompt"
	"github.com/ralph-ci/ralph-ci/pipeline/spend"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/schema"
)

// rotate runs one rotation of sp and saves its outcome. pending, when
// set, is an interrupted rotation being run again: it keeps its iteration,
// history log and, above all, its baseline snapshot.
func (e *engine) rotate(ctx context.Context, sp plan.Spec, pending *state.Rotation) error {
	ss := e.entryOrNew(sp.Path)
	stage, idx, err := stageOf(sp, ss)
	if err != nil {
		return err
	}
	iteration, n := e.st.Iteration+1, ss.Rotations+1
	before, history, logf, err := e.open(ctx, sp, stage, iteration, n, pending)
	if err != nil {
		return err
	}
	defer logf.Close()

	stop := e.heartbeat(fmt.Sprintf("iteration %d · %s · %s %d/%d · counter %s", iteration, sp.Path, stage.Name, ss.StageIterations+1, stage.MaxIterations, counter.String(ss.DoneCount)))
	res, agentName, err := e.runAgent(ctx, sp, stage, ss, iteration, logf)
	stop()
	e.progress("")
	if err != nil {
		return err
	}
	if res.Cancelled {
		return ctx.Err()
	}
	status, err := e.readStatus(sp, res.Status)
	if err != nil {
		return err
	}
	left, err := e.inspectGit(ctx) // before the snapshot: the checkout is put back first
	if err != nil {
		return err
	}
	after, err := e.watch.Take(ctx)
	if err != nil {
		return err
	}
	changed, err := changes.Changed(ctx, e.root, before, after)
	if err != nil {
		return err
	}
	e.after, e.latest = &after, &after

	j, err := e.verdictOf(ctx, sp, *ss, stage, agentName, status, res, changed, history, left)
	if err != nil {
		return err
	}
	verifying := ss.StagesDone // this rotation is a verification pass
	apply(&e.st, sp, stage, idx, j, changed, e.opts.Project.Config.Loop.StuckAttempts)
	tripBreaker(ss, j.Verdict, e.opts.Project.Config.Loop.SameRejections)
	boundPasses(ss, verifying, e.opts.Project.Config.Loop.MaxVerificationPasses)
	v := j.Verdict
	e.lastJudge = e.settleJudge(ctx, ss, j.judge)
	e.settle(sp, ss, n, iteration, res)
	if v.Reason != "" {
		e.noteHandoff(sp, v.Reason)
	}
	e.record(sp, stage, agentName, iteration, res, status, v, ss, changed, history)
	e.logRotation(sp, stage, iteration, res, v, ss, changed)
	return e.deliverRotation(ctx, deliver.Rotation{Spec: sp.Path, Stage: stage.Name, Iteration: iteration, Status: string(v.Status), Counter: counter.String(ss.DoneCount), Tree: j.tree})
}

// open starts rotation n of sp: its baseline snapshot, its record saved
// with the previous rotation's result in one write, its history log
// created, and the status file cleared.
func (e *engine) open(ctx context.Context, sp plan.Spec, stage plan.Stage, iteration, n int, pending *state.Rotation) (before changes.Snapshot, history string, logf *os.File, err error) {
	if err := e.dir.EnsureHistory(sp.Key); err != nil {
		return before, "", nil, err
	}
	history = e.dir.HistoryLog(sp.Key, n)
	e.resuming = pending != nil
	if before, err = e.baseline(ctx, pending); err != nil {
		return before, "", nil, err
	}
	e.latest = &before
	raw, err := json.Marshal(before)
	if err != nil {
		return before, "", nil, err
	}
	rel, err := e.dir.Rel(history)
	if err != nil {
		return before, "", nil, err
	}
	// The history log is created while the state is flushed to disk: a
	// new file can cost as much as the flush (ext4 without a journal scans
	// the inodes deleted in the last minute), and neither waits for the
	// other. Made before the state names it, it is at worst left empty by
	// a crash, to be recreated under the same name.
	created := make(chan error, 1)
	go func() {
		var err error
		logf, err = safefile.OpenUnder(e.dir.Path(), history, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		created <- err
	}()
	// One write: the previous rotation's result and this one's record.
	e.st.Pending = &state.Rotation{Iteration: iteration, Spec: sp.Path, Stage: stage.Name, History: rel, StartedAt: time.Now().UTC(), Before: raw}
	err = state.Save(e.dir, e.st)
	if cerr := <-created; cerr != nil {
		return before, "", nil, fmt.Errorf("history log: %w", cerr)
	}
	if err == nil {
		if rerr := safefile.RemoveUnder(e.dir.Path(), e.dir.StatusFile()); rerr != nil {
			err = fmt.Errorf("clear %s: %w", e.dir.StatusFile(), rerr)
		}
	}
	if err != nil {
		logf.Close()
		return before, "", nil, err
	}
	return before, history, logf, nil
}

// settle counts rotation n of sp as done: its number, its agent time, the
// per-spec budget, and the run's iteration with no rotation pending (saved
// with the next rotation's record, or at the end of the run).
func (e *engine) settle(sp plan.Spec, ss *state.SpecState, n, iteration int, res agent.Result) {
	ss.Rotations = n
	ss.Seconds += res.Duration.Seconds()
	if max := e.opts.Project.Config.Budgets.MaxSpecRotations; max > 0 && n >= max && !ss.Verified(sp.Hash) && ss.Excluded == "" {
		ss.Excluded = fmt.Sprintf("budgets.max_spec_rotations (%d) reached without verification", max)
	}
	e.st.Iteration, e.st.Current, e.st.Pending = iteration, sp.Path, nil
	e.outcome.Rotations++
	e.outcome.CostUSD += res.Usage.CostUSD
}

// logRotation writes the rotation's log line.
func (e *engine) logRotation(sp plan.Spec, stage plan.Stage, iteration int, res agent.Result, v layers.Verdict, ss *state.SpecState, changed []string) {
	ev := e.log.Info().Str("spec", sp.Path).Int("iteration", iteration).Str("stage", stage.Name).
		Str("status", string(v.Status)).Str("counter", counter.String(ss.DoneCount)).Int("changed", len(changed)).
		Dur("duration_ms", res.Duration)
	if res.Usage.CostKnown {
		ev = ev.Float64("cost_usd", res.Usage.CostUSD)
	}
	if j := e.lastJudge; j != nil {
		ev = ev.Str("judge", j.Model).Str("judge_verdict", j.Verdict).Float64("judge_cost_usd", j.CostUSD)
	}
	if v.Reason != "" {
		ev = ev.Str("reason", v.Reason)
	}
	if ss.Excluded != "" {
		ev = ev.Str("excluded", ss.Excluded)
	}
	ev.Msg("rotation")
}

// baseline is the snapshot the rotation is compared against.
func (e *engine) baseline(ctx context.Context, pending *state.Rotation) (changes.Snapshot, error) {
	if pending != nil {
		var s changes.Snapshot
		if err := json.Unmarshal(pending.Before, &s); err != nil {
			return s, fmt.Errorf("%s: the pending rotation's baseline is unreadable (%v): run ralph-ci reset to discard it", e.dir.StatePath(), err)
		}
		return s, nil
	}
	if on, _ := e.watch.FastPath(); on || e.after == nil {
		return e.watch.Take(ctx) // also sees what changed between rotations
	}
	return *e.after, nil
}

// The history log of one rotation keeps at most this much of the agent's
// output: its first historyHead and last historyTail bytes.
const (
	historyHead = 8 << 20
	historyTail = 2 << 20
)

// runAgent runs the stage's agent with the rotation's prompt, streaming
// its output to the history log logf and current.log.
func (e *engine) runAgent(ctx context.Context, sp plan.Spec, stage plan.Stage, ss *state.SpecState, iteration int, logf *os.File) (agent.Result, string, error) {
	cfg := e.opts.Project.Config
	if len(stage.Agents) == 0 {
		return agent.Result{}, "", fmt.Errorf("stage %s has no agent: define one in %s", stage.Name, cfg.File)
	}
	in, err := e.promptInput(sp, stage, ss)
	if err != nil {
		return agent.Result{}, "", err
	}
	files := io.Writer(logf)
	if err := e.dir.LinkCurrentLog(logf.Name()); err != nil {
		cur, err := e.dir.CreateCurrentLog()
		if err != nil {
			return agent.Result{}, "", err
		}
		defer cur.Close()
		files = io.MultiWriter(logf, cur)
	}
	// The rotation's log keeps the head and the tail of a huge output.
	capped := headtail.New(files, historyHead, historyTail)
	defer func() {
		if err := capped.Close(); err != nil {
			e.log.Warn().Err(err).Str("file", logf.Name()).Msg("could not finish the history log")
		}
		if cut := capped.Cut(); cut > 0 {
			e.log.Warn().Str("spec", sp.Path).Int64("cut_bytes", cut).Str("file", logf.Name()).Msg("the agent's output was too long for the history log: its middle was cut")
		}
	}()
	out := io.Writer(capped)
	if e.opts.Echo != nil {
		w, done := e.opts.Echo(fmt.Sprintf("%s · %s · iteration %d", sp.Path, stage.Name, iteration))
		defer done()
		out = io.MultiWriter(out, w)
	}
	text := prompt.Build(in)
	e.promptBytes = len(text)
	env := []string{
		"RALPH_SPEC=" + sp.Path,
		"RALPH_ITERATION=" + strconv.Itoa(iteration),
		"RALPH_STAGE=" + stage.Name,
		"RALPH_HANDOFF=" + e.relToRoot(e.dir.Handoff(sp.Key)),
		"RALPH_GUARDRAILS=" + e.relToRoot(e.dir.Guardrails()),
		"RALPH_RUN_ID=" + e.runID,
	}
	watch := e.claimWatch(ctx, sp, stage, ss)
	e.lastSpend, e.lastStop = spend.Amount{}, nil
	return e.runPool(ctx, stage.Agents, out, func(name string) (agent.Result, error) {
		a := cfg.Agents[name]
		m, pre := e.meter(ctx, ss, a)
		if pre != nil { // no share of the day left: the rotation waits for the next run
			e.spend.halt = pre
			e.spend.stops = append(e.spend.stops, reportStop(*pre))
			return agent.Result{Cancelled: true}, nil
		}
		res, err := agent.Configured(ctx, agent.Start{Name: name, Agent: a, Dir: e.root, Env: env, Prompt: text, Output: out, Watch: watch, Meter: m.Check, Host: e.opts.Host})
		if err == nil || res.PID != 0 {
			amount, stop := e.settleSpend(ctx, ss, m, res, a, iteration, sp.Path)
			e.lastSpend = e.lastSpend.Add(amount)
			if stop != nil {
				e.lastStop = stop
			}
		}
		if err != nil && !res.Cancelled {
			return res, fmt.Errorf("agent %s on %s: %w", name, sp.Path, err)
		}
		if res.Failure(err) == agent.TimedOut {
			e.log.Warn().Str("spec", sp.Path).Str("agent", name).Dur("timeout", a.Timeout.Std()).Msg("agent timed out: its process group was stopped")
		}
		return res, nil
	})
}

// promptInput gathers what the prompt is made of.
func (e *engine) promptInput(sp plan.Spec, stage plan.Stage, ss *state.SpecState) (prompt.Input, error) {
	src, err := e.readTree(sp.Path, safefile.SpecLimit)
	if err != nil {
		return prompt.Input{}, fmt.Errorf("read spec: %w", err)
	}
	_, body, _, _ := schema.SplitFrontMatter(sp.Path, src)
	handoff, err := safefile.ReadUnderOptional(e.dir.Path(), e.dir.Handoff(sp.Key), safefile.NoteLimit)
	if err != nil {
		return prompt.Input{}, err
	}
	guard, err := safefile.ReadUnderOptional(e.dir.Path(), e.dir.Guardrails(), safefile.NoteLimit)
	if err != nil {
		return prompt.Input{}, err
	}
	in := prompt.Input{
		SpecPath: sp.Path, SpecBody: string(body), Stage: stage.Name,
		Iteration: ss.StageIterations + 1, MaxIterations: stage.MaxIterations,
		Criteria: sp.AcceptanceCriteria, Description: stage.Criteria.Description,
		Promise: stage.Criteria.Promise, Method: stage.Criteria.VerificationMethod,
		ReportCriteria: e.opts.Project.Config.Layers.CriteriaReport,
		HandoffPath:    e.relToRoot(e.dir.Handoff(sp.Key)), Handoff: string(handoff),
		GuardrailPath: e.relToRoot(e.dir.Guardrails()), Guardrails: string(guard),
	}
	if c := sp.Front.Completion; c != nil {
		in.Outcome, in.Criteria = c.Outcome, append(append([]string{}, c.AcceptanceCriteria...), sp.AcceptanceCriteria...)
	}
	in.Rejected = ss.Reason
	in.Feedback = append(in.Feedback, e.checkpointFeedback(sp, stage.Name)...)
	return in, nil
}

// readStatus reads the rotation's claim: the output's final status line
// and the word in .ralph/status (layers.FinalStatus); when they disagree
// there is no claim, and the handoff says why. A status file that is not
// a small regular file (a FIFO, a link, a huge file) is the agent's
// doing: it is ignored with a warning, never read whole or waited on.
func (e *engine) readStatus(sp plan.Spec, fromOutput status.Status) (status.Status, error) {
	b, err := safefile.ReadUnderOptional(e.dir.Path(), e.dir.StatusFile(), safefile.StatusLimit)
	if errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge) || errors.Is(err, safefile.ErrLink) {
		e.log.Warn().Err(err).Msg("ignoring the status file")
		return fromOutput, nil
	}
	if err != nil || b == nil {
		return fromOutput, err
	}
	fromFile, ok := agent.ParseStatusFile(b)
	if !ok {
		e.log.Warn().Str("file", e.dir.StatusFile()).Str("content", string(b)).Msg("ignoring an unknown status word")
	}
	st, conflict := layers.FinalStatus(fromOutput, fromFile, ok)
	if conflict != "" {
		e.log.Warn().Str("spec", sp.Path).Msg(conflict)
		e.noteHandoff(sp, conflict)
	}
	return st, nil
}

// noteHandoff appends ralph-ci's reason to the spec's handoff file, so
// the next rotation (and a human) can see why the claim did not hold. The
// file keeps the last prompt.MaxNotes of these notes (the older ones are
// counted on one line): rejected claims do not grow it without bound.
func (e *engine) noteHandoff(sp plan.Spec, reason string) {
	path := e.dir.Handoff(sp.Key)
	old, err := state.ReadOptional(path)
	if err == nil {
		err = state.WriteFileAtomic(path, []byte(prompt.PruneNotes(string(old)+prompt.Note(reason))), 0o644)
	}
	if err != nil {
		e.log.Warn().Err(err).Msg("could not note the rejection in the handoff")
	}
}

func joinClose(err error, c io.Closer) error {
	if cerr := c.Close(); err == nil {
		return cerr
	}
	return err
}

func (e *engine) relToRoot(p string) string {
	rel, err := filepath.Rel(e.root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// heartbeat draws the rotation's progress line (line) and redraws it
// every second with the rotation's elapsed time and the file its output
// goes to, so that a rotation of minutes on a terminal shows it is alive
// and where to look (tail -f). Only on a terminal (Options.Progress; never
// on a runner). stop ends the redraws before the line is cleared.
func (e *engine) heartbeat(line string) (stop func()) {
	if e.opts.Progress == nil {
		return func() {}
	}
	start, out := time.Now(), e.relToRoot(e.dir.CurrentLog())
	draw := func() {
		e.progress(fmt.Sprintf("%s · %s · output: %s", line, time.Since(start).Round(time.Second), out))
	}
	draw()
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				draw()
			}
		}
	}()
	return func() { close(done); <-exited }
}

// progress writes a live progress line ("" clears it).
func (e *engine) progress(line string) {
	if e.opts.Progress == nil {
		return
	}
	if line == "" {
		fmt.Fprint(e.opts.Progress, "\r\033[K")
		return
	}
	fmt.Fprintf(e.opts.Progress, "\r\033[K⟳ %s", line)
}
