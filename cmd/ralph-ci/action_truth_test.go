package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/actionstep"
)

// Jobs that tell the truth: action.yml's ralph-ci step, run as a runner
// runs it (internal/actionstep) with the real binary, on the pull request
// of prWorld. Waiting for a person ends the step green (the exit-code
// output says 6); fail-on-waiting turns the old red back on; a rejection
// stays red.

// actionStep runs the Action's ralph-ci step with inputs with, in w's
// checkout and job environment.
func (w *prWorld) actionStep(with map[string]string) actionstep.Result {
	w.t.Helper()
	action, err := actionstep.Load(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		w.t.Fatal(err)
	}
	ctx := actionstep.Context{"github.action_path": "..", "github.token": "test-token", "github.workspace": w.dir,
		"runner.temp": w.t.TempDir(), "runner.os": "Linux", "runner.arch": "X64", "steps.build.outputs.bin": w.bin}
	if err := ctx.Inputs(action, with); err != nil {
		w.t.Fatal(err)
	}
	steps := w.t.TempDir()
	r := &actionstep.Runner{Ctx: ctx, Env: w.env(), Dir: steps}
	s, err := action.Step("ralph")
	if err != nil {
		w.t.Fatal(err)
	}
	res, err := r.Run(s)
	if err != nil {
		w.t.Fatalf("the ralph-ci step: %v\n%s", err, res.Output)
	}
	return res
}

func TestActionStepsTellTheTruth(t *testing.T) {
	w := newPRWorld(t, ralphBinary(t))
	w.srv.Perms["alice"] = "write"

	// run: verified 3/3, the checkpoint waits: green, exit-code 6.
	res := w.actionStep(map[string]string{"command": "run", "deliver": "none"})
	if res.Err != nil || res.Outputs["exit-code"] != "6" {
		t.Fatalf("run awaiting a person: step error %v, exit-code %q; want green with exit-code 6\n%s", res.Err, res.Outputs["exit-code"], res.Output)
	}
	contains(t, "the run step's log", res.Output, "::notice title=ralph-ci::waiting for a person (exit 6")
	if strings.Contains(res.Output, "\r") {
		t.Errorf("a progress line on a runner:\n%q", res.Output)
	}

	// The old behaviour on request.
	res = w.actionStep(map[string]string{"command": "check", "deliver": "none", "fail-on-waiting": "true"})
	if res.Err == nil || res.Outputs["exit-code"] != "6" {
		t.Fatalf("check with fail-on-waiting: step error %v, exit-code %q; want red with 6", res.Err, res.Outputs["exit-code"])
	}

	// Approved, then a person pushes: check says the approval is for an
	// older commit, and waits (green, 6).
	w.srv.React(w.checkpoint().ID, alice, "+1")
	if res = w.actionStep(map[string]string{"command": "check", "deliver": "none"}); res.Err != nil || res.Outputs["exit-code"] != "0" {
		t.Fatalf("check after the approval: %v, exit-code %q\n%s", res.Err, res.Outputs["exit-code"], res.Output)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "human.txt"), []byte("a person's change\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.commit("a person's change")
	w.srv.SetHead(w.head)
	res = w.actionStep(map[string]string{"command": "check", "deliver": "none"})
	if res.Err != nil || res.Outputs["exit-code"] != "6" {
		t.Fatalf("check after a person's push: %v, exit-code %q", res.Err, res.Outputs["exit-code"])
	}
	contains(t, "check after a person's push", res.Output, "was approved for an older commit")

	// A rejection stays red.
	w.ralph(6, "run")
	w.srv.AddComment(alice, "2 the total must round half up")
	res = w.actionStep(map[string]string{"command": "check", "deliver": "none"})
	if res.Err == nil || res.Outputs["exit-code"] != "7" {
		t.Fatalf("check after a rejection: step error %v, exit-code %q; want red with 7\n%s", res.Err, res.Outputs["exit-code"], res.Output)
	}
}
