package engine

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/reporters"
)

// Layer 3, the artifact review, mapped onto ralph-ci (see doc.go): a task
// is an accepted completion claim of a spec, numbered from 0 per spec
// (SpecState.TaskIndex); its phase is its stage; the spec has one task per
// stage before its verification passes, so the final task is the claim
// that completes the last stage (taskIndex == stages - 1).

// reviewDue tells whether the task at index i, on stage, gets an artifact
// review: at a phase boundary (its stage differs from the previous task's),
// every Nth task, and at the final task.
func reviewDue(i int, prevStage, stage string, stages, every int) bool {
	return (i > 0 && prevStage != stage) || i%every == 0 || i == stages-1
}

// nextReview is the index of the next task after i that would be reviewed.
func nextReview(i, stages, every int) int {
	if i+1 <= stages-1 { // the next task starts a new stage
		return i + 1
	}
	return (i/every + 1) * every
}

// review runs layer 3 on a claim that passed the other layers. reviewed
// tells that the reviewer ran; ok that the claim still holds (false on
// REVIEW_FAIL with Path A: the findings go to the next rotation).
func (e *engine) review(ctx context.Context, sp plan.Spec, ss *state.SpecState, stage plan.Stage, v *verdict, changed []string, transcript func() io.Writer) (reviewed, ok bool, err error) {
	cfg := e.opts.Project.Config.Layers.Review
	if !cfg.Enabled {
		return false, true, nil
	}
	if ss.ReviewIteration == 0 && !reviewDue(ss.TaskIndex, ss.TaskStage, stage.Name, len(sp.Stages), cfg.Every) {
		msg := fmt.Sprintf("Skipping artifact review (next at task %d)", nextReview(ss.TaskIndex, len(sp.Stages), cfg.Every))
		e.log.Info().Str("spec", sp.Path).Int("task", ss.TaskIndex).Msg(msg)
		e.progressLog(sp, msg+"\n")
		v.pass("review", msg)
		return false, true, nil
	}
	name := e.opts.Project.Config.ReviewAgent()
	if name == "" {
		e.log.Debug().Str("spec", sp.Path).Msg("artifact review skipped: no reviewer agent (set layers.review.agent or define agents.reviewer)")
		v.pass("review", "skipped: no reviewer agent configured")
		return false, true, nil
	}
	it := ss.ReviewIteration
	if it < 1 || it > cfg.MaxIterations { // iteration counter edge cases
		it = 1
	}
	out, runErr := e.runReviewer(ctx, sp, ss, stage, name, it, cfg.MaxIterations, changed, transcript())
	if ctx.Err() != nil {
		return true, false, ctx.Err()
	}
	if runErr != nil {
		e.log.Warn().Str("spec", sp.Path).Str("reviewer", name).Err(runErr).Msg("the reviewer failed: no review signal")
	}
	signal, findings := reviewSignal(out), reviewFindings(out)
	entry := func(status, action string) {
		e.progressLog(sp, fmt.Sprintf("\n### Review: execution (Task %d, Iteration %d)\n- Status: %s\n- Findings: %s\n- Action: %s\n", ss.TaskIndex, it, status, summary(findings), action))
	}
	switch {
	case signal == "":
		entry("REVIEW_PASS (no signal)", "proceeded")
		v.pass("review", "REVIEW_PASS (no signal)")
	case signal == "REVIEW_PASS":
		entry("REVIEW_PASS", "proceeded")
		v.pass("review", fmt.Sprintf("REVIEW_PASS (iteration %d)", it))
	case it >= cfg.MaxIterations:
		entry("REVIEW_FAIL", "proceeded")
		warn := fmt.Sprintf("Max iterations (%d) reached without REVIEW_PASS.\nProceeding with best available implementation.\nOutstanding issues: %s", cfg.MaxIterations, findings)
		e.log.Warn().Str("spec", sp.Path).Msg(warn)
		e.progressLog(sp, "\n"+warn+"\n")
		v.pass("review", fmt.Sprintf("REVIEW_FAIL at max iterations (%d): proceeding with best available implementation", cfg.MaxIterations))
	case pathB(out):
		entry("REVIEW_FAIL", "warnings appended, proceeded")
		e.progressLog(sp, fmt.Sprintf("\n## Review Suggestions\n\n(Task %d, iteration %d)\n%s\n", ss.TaskIndex, it, findings))
		v.pass("review", "REVIEW_FAIL with spec-level findings (Path B): suggestions appended under ## Review Suggestions in "+e.relToRoot(e.progressFile(sp)))
	default: // Path A: a fix rotation with the findings
		entry("REVIEW_FAIL", "fix task added")
		ss.ReviewIteration, ss.ReviewFindings, ss.ReviewFixFailures = it+1, findings, 0
		v.reject("review", fmt.Sprintf("REVIEW_FAIL (review iteration %d of %d): fix the reviewer's findings, then claim completion again. Findings: %s", it, cfg.MaxIterations, findings))
		return true, false, nil
	}
	clearReview(ss)
	return true, true, nil
}

// runReviewer runs the reviewer agent and returns its final text.
func (e *engine) runReviewer(ctx context.Context, sp plan.Spec, ss *state.SpecState, stage plan.Stage, name string, it, max int, changed []string, out io.Writer) (string, error) {
	a, found := e.opts.Project.Config.Agents[name]
	if !found {
		return "", fmt.Errorf("no agent named %q", name)
	}
	src, err := safefile.Read(filepath.Join(e.root, filepath.FromSlash(sp.Path)), safefile.SpecLimit)
	if err != nil {
		return "", fmt.Errorf("read spec: %w", err)
	}
	text := reviewPrompt(reviewInput{Spec: sp, Stage: stage, Task: ss.TaskIndex, Iteration: it, Max: max, Changed: changed, Source: string(src), Prior: ss.ReviewFindings})
	env := []string{"RALPH_SPEC=" + sp.Path, "RALPH_STAGE=" + stage.Name, "RALPH_REVIEW_ITERATION=" + strconv.Itoa(it), "RALPH_RUN_ID=" + e.runID}
	for k, val := range a.Env {
		env = append(env, k+"="+val)
	}
	fmt.Fprintf(out, "\n--- reviewer %s, iteration %d ---\n", name, it)
	res, err := agent.Run(ctx, agent.Invocation{Argv: a.Command, Dir: e.root, Env: env, Prompt: text, Timeout: a.Timeout.Std(), Format: a.Format, Output: out})
	switch {
	case err != nil && res.PID == 0:
		return "", err
	case res.TimedOut:
		return res.Tail, fmt.Errorf("timed out after %s", a.Timeout.Std())
	case res.ExitCode != 0:
		return res.Tail, fmt.Errorf("exited with %d", res.ExitCode)
	}
	return res.Tail, nil
}

// progressFile is the spec's progress log: .ralph/progress/{key}.md.
func (e *engine) progressFile(sp plan.Spec) string {
	return filepath.Join(e.dir.Path(), "progress", sp.Key+".md")
}

// progressLog appends text to the spec's progress log, creating it.
func (e *engine) progressLog(sp plan.Spec, text string) {
	p := e.progressFile(sp)
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	var f *os.File
	if err == nil {
		f, err = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	}
	if err == nil {
		if fi, serr := f.Stat(); serr == nil && fi.Size() == 0 {
			fmt.Fprintf(f, "# Progress: %s\n\n", sp.Path)
		}
		_, err = io.WriteString(f, text)
		err = joinClose(err, f)
	}
	if err != nil {
		e.log.Warn().Err(err).Str("file", p).Msg("could not write the progress log")
	}
}

func reportersLayer(name string, passed bool, detail string) reporters.Layer {
	return reporters.Layer{Name: name, Passed: passed, Detail: detail}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
