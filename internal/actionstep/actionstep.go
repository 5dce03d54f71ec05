// Package actionstep runs a `shell: bash` step of a composite action
// (action.yml) the way the GitHub Actions runner does, so that tests can run
// the Action's own scripts, unchanged, on this machine: the step's `run:`
// and `env:` are taken from the file, its `${{ }}` expressions are
// substituted from a context the test gives, and the script runs under
// `bash --noprofile --norc -eo pipefail` with $GITHUB_OUTPUT collected.
//
// Only the expression forms action.yml uses are understood: a context path
// (github.action_path, runner.temp, inputs.token, steps.ID.outputs.NAME),
// `a || b` (the first non-empty), and `a == 'literal'`. Anything else is an
// error, so a new expression in action.yml fails the tests until it is
// modelled here instead of being silently mis-substituted.
package actionstep

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Action is the part of an action.yml these tests run.
type Action struct {
	Inputs map[string]Input `yaml:"inputs"`
	Runs   struct {
		Using string `yaml:"using"`
		Steps []Step `yaml:"steps"`
	} `yaml:"runs"`
}

// Input is one declared input of the action.
type Input struct {
	Default string `yaml:"default"`
}

// Step is one step of a composite action.
type Step struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	Run              string            `yaml:"run"`
}

// Load reads an action.yml.
func Load(path string) (*Action, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Action
	if err := yaml.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if a.Runs.Using != "composite" {
		return nil, fmt.Errorf("%s: runs.using is %q, not composite", path, a.Runs.Using)
	}
	return &a, nil
}

// Step returns the step with the given id.
func (a *Action) Step(id string) (Step, error) {
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s, nil
		}
	}
	return Step{}, fmt.Errorf("action.yml has no step with id %q", id)
}

// Context holds the values of the expression contexts, keyed by their
// full path ("github.action_ref", "runner.temp", "steps.install.outputs.bin").
// Inputs are filled in by Inputs.
type Context map[string]string

// Inputs sets inputs.NAME for every input the action declares: the value
// in with, else the input's default (itself expanded, as the runner does
// for `default: ${{ github.token }}`).
func (c Context) Inputs(a *Action, with map[string]string) error {
	for name, in := range a.Inputs {
		v, ok := with[name]
		if !ok {
			var err error
			if v, err = c.Expand(in.Default); err != nil {
				return fmt.Errorf("inputs.%s default: %w", name, err)
			}
		}
		c["inputs."+name] = v
	}
	for name := range with {
		if _, ok := a.Inputs[name]; !ok {
			return fmt.Errorf("with: the action has no input %q", name)
		}
	}
	return nil
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// Expand substitutes every ${{ }} expression in s.
func (c Context) Expand(s string) (string, error) {
	var firstErr error
	out := exprRE.ReplaceAllStringFunc(s, func(m string) string {
		v, err := c.Eval(exprRE.FindStringSubmatch(m)[1])
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", m, err)
		}
		return v
	})
	return out, firstErr
}

var (
	pathRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+$`)
	literalRE = regexp.MustCompile(`^'([^']*)'$`)
)

// Eval evaluates one expression (without its ${{ }}): a context path, `a
// || b` or `a == 'literal'`; == yields "true" or "false".
func (c Context) Eval(expr string) (string, error) {
	if left, right, ok := strings.Cut(expr, "||"); ok {
		l, err := c.Eval(strings.TrimSpace(left))
		if err != nil || l != "" {
			return l, err
		}
		return c.Eval(strings.TrimSpace(right))
	}
	if left, right, ok := strings.Cut(expr, "=="); ok {
		l, err := c.Eval(strings.TrimSpace(left))
		if err != nil {
			return "", err
		}
		lit := literalRE.FindStringSubmatch(strings.TrimSpace(right))
		if lit == nil {
			return "", fmt.Errorf("only a 'literal' may follow ==, not %q", right)
		}
		return fmt.Sprint(l == lit[1]), nil
	}
	if !pathRE.MatchString(expr) {
		return "", fmt.Errorf("unsupported expression %q", expr)
	}
	if strings.HasPrefix(expr, "steps.") {
		return c[expr], nil // an output a step did not set is empty
	}
	v, ok := c[expr]
	if !ok {
		return "", fmt.Errorf("the test context has no %s", expr)
	}
	return v, nil
}
