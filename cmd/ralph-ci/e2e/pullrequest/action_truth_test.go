package pullrequest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

func TestActionStepsTellTheTruth(t *testing.T) {
	w := newPRWorld(t, e2e.RalphBinary(t))
	w.Srv.Perms["alice"] = "write"

	// run: verified 3/3, the checkpoint waits: green, exit-code 6.
	res := w.ActionStep(map[string]string{"command": "run", "deliver": "none"})
	if res.Err != nil || res.Outputs["exit-code"] != "6" {
		t.Fatalf("run awaiting a person: step error %v, exit-code %q; want green with exit-code 6\n%s", res.Err, res.Outputs["exit-code"], res.Output)
	}
	e2e.Contains(t, "the run step's log", res.Output, "::notice title=ralph-ci::waiting for a person (exit 6")
	if strings.Contains(res.Output, "\r") {
		t.Errorf("a progress line on a runner:\n%q", res.Output)
	}

	// The old behaviour on request.
	res = w.ActionStep(map[string]string{"command": "check", "deliver": "none", "fail-on-waiting": "true"})
	if res.Err == nil || res.Outputs["exit-code"] != "6" {
		t.Fatalf("check with fail-on-waiting: step error %v, exit-code %q; want red with 6", res.Err, res.Outputs["exit-code"])
	}

	// Approved, then a person pushes: check says the approval is for an
	// older commit, and waits (green, 6).
	w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1")
	if res = w.ActionStep(map[string]string{"command": "check", "deliver": "none"}); res.Err != nil || res.Outputs["exit-code"] != "0" {
		t.Fatalf("check after the approval: %v, exit-code %q\n%s", res.Err, res.Outputs["exit-code"], res.Output)
	}
	if err := os.WriteFile(filepath.Join(w.Dir, "human.txt"), []byte("a person's change\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Commit("a person's change")
	w.Srv.SetHead(w.HeadSHA)
	res = w.ActionStep(map[string]string{"command": "check", "deliver": "none"})
	if res.Err != nil || res.Outputs["exit-code"] != "6" {
		t.Fatalf("check after a person's push: %v, exit-code %q", res.Err, res.Outputs["exit-code"])
	}
	e2e.Contains(t, "check after a person's push", res.Output, "was approved for an older commit")

	// A rejection stays red.
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Alice, "2 the total must round half up")
	res = w.ActionStep(map[string]string{"command": "check", "deliver": "none"})
	if res.Err == nil || res.Outputs["exit-code"] != "7" {
		t.Fatalf("check after a rejection: step error %v, exit-code %q; want red with 7\n%s", res.Err, res.Outputs["exit-code"], res.Output)
	}
}
