package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Judge runs a judge agent on a prompt and returns its final text. An
// error means the judge gave no usable answer (it could not start, timed
// out, failed, or was cancelled).
type Judge interface {
	Judge(ctx context.Context, name, model, prompt string) (string, error)
}

// AgentJudge runs judges as the config's agents: the prompt on stdin, in
// the repository root, with the agent's timeout, format and environment,
// plus RALPH_JUDGE_MODEL (the criteria's model) and RALPH_JUDGE=1.
type AgentJudge struct {
	Agents map[string]schema.Agent
	Root   string
	// Env is added to every judge's environment (before its own env).
	Env []string
	// Transcript receives the judges' output; nil discards it.
	Transcript io.Writer
}

// Judge implements Judge.
func (j AgentJudge) Judge(ctx context.Context, name, model, prompt string) (string, error) {
	a, ok := j.Agents[name]
	if !ok {
		return "", fmt.Errorf("judge %q is not an agent of the config (agents: %s)", name, strings.Join(slices.Sorted(maps.Keys(j.Agents)), ", "))
	}
	env := append(slices.Clone(j.Env), "RALPH_JUDGE=1", "RALPH_JUDGE_MODEL="+model)
	for k, v := range a.Env {
		env = append(env, k+"="+v)
	}
	out := j.Transcript
	if out != nil {
		fmt.Fprintf(out, "\n--- judge %s ---\n", name)
	}
	res, err := agent.Run(ctx, agent.Invocation{
		Argv: a.Command, Dir: j.Root, Env: env, Prompt: prompt,
		Timeout: a.Timeout.Std(), Format: a.Format, Output: out,
	})
	switch {
	case res.Cancelled:
		return "", errors.New("judge cancelled")
	case err != nil && res.PID == 0:
		return "", fmt.Errorf("judge %s: %w", name, err)
	case res.TimedOut:
		return "", fmt.Errorf("judge %s timed out after %s", name, a.Timeout.Std())
	case res.ExitCode != 0:
		return "", fmt.Errorf("judge %s exited with %d", name, res.ExitCode)
	case res.Usage.IsError:
		return "", fmt.Errorf("judge %s reported an error: %s", name, res.Usage.ErrorMessage)
	}
	return res.Tail, nil
}
