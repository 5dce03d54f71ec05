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

// AgentJudge runs judges as the config's agents, through agent.Configured:
// the prompt on stdin, in the repository root, with the agent's timeout,
// format and environment, plus RALPH_JUDGE_MODEL (the criteria's model)
// and RALPH_JUDGE=1.
type AgentJudge struct {
	Agents map[string]schema.Agent
	Root   string
	// Env is added to every judge's environment (before its own env).
	Env []string
	// Transcript receives the judges' output; nil discards it.
	Transcript io.Writer
	// Host is how the judges are started (agent.Host).
	Host *agent.Host
}

// Judge implements Judge.
func (j AgentJudge) Judge(ctx context.Context, name, model, prompt string) (string, error) {
	a, ok := j.Agents[name]
	if !ok {
		return "", fmt.Errorf("judge %q is not an agent of the config (agents: %s)", name, strings.Join(slices.Sorted(maps.Keys(j.Agents)), ", "))
	}
	out := j.Transcript
	if out != nil {
		fmt.Fprintf(out, "\n--- judge %s ---\n", name)
	}
	start := agent.Start{Name: name, Agent: a, Dir: j.Root, Env: append(slices.Clone(j.Env), "RALPH_JUDGE=1", "RALPH_JUDGE_MODEL="+model), Prompt: prompt, Output: out, Host: j.Host}
	res, err := agent.Configured(ctx, start)
	switch ferr := start.Failed(res, err); {
	case res.Failure(err) == agent.Cancelled:
		return "", errors.New("judge cancelled")
	case ferr != nil:
		return "", fmt.Errorf("judge %w", ferr)
	}
	return res.Tail, nil
}
