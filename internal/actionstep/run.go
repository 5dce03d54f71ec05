package actionstep

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Runner runs the steps of one action, in order, sharing a context: the
// outputs of a step become steps.ID.outputs.NAME for the steps after it.
type Runner struct {
	Ctx Context
	// Env is the job's environment the steps inherit (os.Environ() and
	// what the workflow sets); each step adds its own env: on top.
	Env []string
	// Dir holds the scripts and $GITHUB_OUTPUT files; steps without a
	// working-directory run in Ctx["github.workspace"].
	Dir string
	n   int
}

// Result is what one step did.
type Result struct {
	Outputs map[string]string
	Output  string // stdout and stderr, interleaved
	Err     error  // the script's failure, nil when it exited 0
}

// Enabled evaluates a step's if: (no if: means enabled).
func (r *Runner) Enabled(s Step) (bool, error) {
	if s.If == "" {
		return true, nil
	}
	cond := strings.TrimSpace(s.If)
	if strings.HasPrefix(cond, "${{") {
		cond = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(cond, "${{"), "}}"))
	}
	v, err := r.Ctx.Eval(cond)
	if err != nil {
		return false, fmt.Errorf("step %q if: %w", s.ID, err)
	}
	return v == "true", nil
}

// StepEnv is the step's env: with its expressions substituted.
func (r *Runner) StepEnv(s Step) (map[string]string, error) {
	env := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		x, err := r.Ctx.Expand(v)
		if err != nil {
			return nil, fmt.Errorf("step %q env %s: %w", s.ID, k, err)
		}
		env[k] = x
	}
	return env, nil
}

// Run runs a `shell: bash` step as the runner does: its run: script (whose
// ${{ }} expressions are substituted) in a file, under `bash --noprofile
// --norc -eo pipefail FILE`, with the step's env: and a fresh
// $GITHUB_OUTPUT. The error is for a step that cannot be run here (not
// bash, a bad expression); a script that fails is reported in Result.Err.
func (r *Runner) Run(s Step) (Result, error) {
	if s.Uses != "" || s.Shell != "bash" {
		return Result{}, fmt.Errorf("step %q is not a shell: bash step", s.ID)
	}
	script, err := r.Ctx.Expand(s.Run)
	if err != nil {
		return Result{}, fmt.Errorf("step %q run: %w", s.ID, err)
	}
	env, err := r.StepEnv(s)
	if err != nil {
		return Result{}, err
	}
	dir := r.Ctx["github.workspace"]
	if s.WorkingDirectory != "" {
		if dir, err = r.Ctx.Expand(s.WorkingDirectory); err != nil {
			return Result{}, fmt.Errorf("step %q working-directory: %w", s.ID, err)
		}
	}
	r.n++
	scriptFile := filepath.Join(r.Dir, fmt.Sprintf("step-%d.sh", r.n))
	outFile := filepath.Join(r.Dir, fmt.Sprintf("output-%d", r.n))
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		return Result{}, err
	}
	if err := os.WriteFile(outFile, nil, 0o600); err != nil {
		return Result{}, err
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", scriptFile)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, r.Env...), "GITHUB_OUTPUT="+outFile)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	res := Result{Err: cmd.Run()}
	res.Output = buf.String()
	data, err := os.ReadFile(outFile)
	if err != nil {
		return res, err
	}
	if res.Outputs, err = ParseOutputs(string(data)); err != nil {
		return res, fmt.Errorf("step %q: $GITHUB_OUTPUT: %w", s.ID, err)
	}
	for k, v := range res.Outputs {
		r.Ctx["steps."+s.ID+".outputs."+k] = v
	}
	return res, nil
}

// ParseOutputs reads a $GITHUB_OUTPUT file: NAME=VALUE lines and
// NAME<<DELIMITER blocks.
func ParseOutputs(data string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var body []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("line %d: %s: no closing %s", i, name, delim)
			}
			out[name] = strings.Join(body, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is neither NAME=VALUE nor NAME<<DELIMITER", i+1, line)
		}
		out[name] = value
	}
	return out, nil
}
