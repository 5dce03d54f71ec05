package e2e

import (
	"github.com/ralph-ci/ralph-ci/internal/actionstep"
)

// ActionStep runs the Action's ralph-ci step with inputs with, in w's
// checkout and job environment.
func (w *PRWorld) ActionStep(with map[string]string) actionstep.Result {
	w.T.Helper()
	action, err := actionstep.Load(Root(w.T, "action.yml"))
	if err != nil {
		w.T.Fatal(err)
	}
	ctx := actionstep.Context{"github.action_path": "..", "github.token": "test-token", "github.workspace": w.Dir,
		"runner.temp": w.T.TempDir(), "runner.os": "Linux", "runner.arch": "X64", "steps.build.outputs.bin": w.Bin}
	if err := ctx.Inputs(action, with); err != nil {
		w.T.Fatal(err)
	}
	steps := w.T.TempDir()
	r := &actionstep.Runner{Ctx: ctx, Env: w.Env(), Dir: steps}
	s, err := action.Step("ralph")
	if err != nil {
		w.T.Fatal(err)
	}
	res, err := r.Run(s)
	if err != nil {
		w.T.Fatalf("the ralph-ci step: %v\n%s", err, res.Output)
	}
	return res
}
