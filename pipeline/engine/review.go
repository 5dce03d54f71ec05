package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// runReviewer runs the reviewer agent and returns its final text.
func (e *engine) runReviewer(ctx context.Context, sp plan.Spec, ss state.SpecState, stage plan.Stage, name string, it, max int, changed []string, out io.Writer) (string, error) {
	a, found := e.opts.Project.Config.Agents[name]
	if !found {
		return "", fmt.Errorf("no agent named %q", name)
	}
	src, err := e.readTree(sp.Path, safefile.SpecLimit)
	if err != nil {
		return "", fmt.Errorf("read spec: %w", err)
	}
	text := layers.ReviewPrompt(layers.ReviewInput{Spec: sp, Stage: stage, Task: ss.TaskIndex, Iteration: it, Max: max, Changed: changed, Source: string(src), Prior: ss.ReviewFindings})
	env := []string{"RALPH_SPEC=" + sp.Path, "RALPH_STAGE=" + stage.Name, "RALPH_REVIEW_ITERATION=" + strconv.Itoa(it), "RALPH_RUN_ID=" + e.runID}
	fmt.Fprintf(out, "\n--- reviewer %s, iteration %d ---\n", name, it)
	start := agent.Start{Name: name, Agent: a, Dir: e.root, Env: env, Prompt: text, Output: out, Host: e.opts.Host}
	res, err := agent.Configured(ctx, start)
	switch ferr := start.Failed(res, err, agent.ReportedError); {
	case ferr != nil && res.Failure(err) == agent.NotStarted:
		return "", ferr
	case ferr != nil:
		return res.Tail, ferr
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
	err := safefile.MkdirUnder(e.dir.Path(), filepath.Dir(p), 0o755)
	var f *os.File
	if err == nil {
		f, err = safefile.OpenUnder(e.dir.Path(), p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
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
