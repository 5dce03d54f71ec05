package delivery

import (
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// TestDeliveryBranchMode: --deliver branch, the mode added through the
// registry (pipeline/deliver/mode_branch.go), through the binary. A
// workflow_dispatch run pushes its work and state to a branch of its own
// and opens no pull request; delivery.ci_workflows is dispatched after a
// push that moved the branch, and not after one that did not; on a pull
// request, the merge gate asks what the mode's rule asks (the state
// delivered for the head branch), where mode none asks ralph-ci's own
// status.
func TestDeliveryBranchMode(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\ndelivery: {ci_workflows: [ci.yml]}\n"
	files["specs/a.spec.md"] = "# A\n"
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	w.Srv.Workflows = []string{"ci.yml"}
	w.SetEvent("push.json") // no pull request in it
	dispatch := []string{"GITHUB_EVENT_NAME=workflow_dispatch", "GITHUB_REF_NAME=changes"}
	tip := w.Rev("refs/heads/changes")

	w.Job(tip, "refs/remotes/origin/changes")
	w.RalphEnv(3, dispatch, "run", "--deliver", "branch", "--max-rotations", "1")
	own := w.Rev("refs/heads/ralph-ci/changes")
	if own == "" || w.Rev(own+"^1") != tip || w.Rev("refs/heads/changes") != tip {
		t.Fatalf("own branch %q is not one commit on top of %s (changes now %s)", own, tip, w.Rev("refs/heads/changes"))
	}
	if w.Rev("refs/ralph-ci/state/ralph-ci/changes^1") != own {
		t.Fatal("the state was not pushed bound to the work commit of the own branch")
	}
	if pulls := w.Srv.OpenedPulls(); len(pulls) != 0 {
		t.Fatalf("branch mode opened pull requests %+v", pulls)
	}
	out, _ := os.ReadFile(w.Output)
	e2e.Contains(t, "GITHUB_OUTPUT", string(out), "branch=ralph-ci/changes", "head-sha="+own, "pull-request=\n")
	if got := w.Srv.Dispatched(); len(got) != 1 || got[0].Workflow != "ci.yml" || got[0].Ref != "ralph-ci/changes" {
		t.Fatalf("workflow_dispatch requests %+v, want ci.yml on ralph-ci/changes", got)
	}

	// The next run continues there: rotation 2 pushes work, rotation 3
	// claims done and changes nothing (the state moves, the branch not).
	w.Job(tip, "refs/remotes/origin/changes")
	w.RalphEnv(3, dispatch, "run", "--deliver", "branch", "--max-rotations", "1")
	moved := w.Rev("refs/heads/ralph-ci/changes")
	if w.Rev(moved+"^1") != own || len(w.Srv.Dispatched()) != 2 {
		t.Fatalf("run 2: branch at %s (want one commit on %s), dispatches %+v", moved, own, w.Srv.Dispatched())
	}
	w.Job(tip, "refs/remotes/origin/changes")
	_, stderr := w.RalphEnv(3, dispatch, "run", "--deliver", "branch", "--max-rotations", "1")
	if w.Rev("refs/heads/ralph-ci/changes") != moved || len(w.Srv.Dispatched()) != 2 {
		t.Fatalf("run 3 moved nothing, yet dispatched CI: %+v", w.Srv.Dispatched())
	}
	e2e.Contains(t, "run 3's log", stderr, "delivery.ci_workflows: not dispatched, this run moved no branch head")
	if got := strings.Join(w.Iterations(), ","); got != "1,2,3" {
		t.Fatalf("iterations %s, want 1,2,3 across the runs", got)
	}

	// On the pull request (head branch changes), the gate's rule is the
	// mode's: branch reads the state delivered for changes (none), none
	// reads ralph-ci's own status.
	w.SetEvent("pull_request.opened.json")
	w.Job("", "")
	_, stderr = w.Ralph(3, "check", "--deliver", "branch", "--log-format", "json")
	e2e.Contains(t, "check --deliver branch", stderr, "no loop state was delivered for the branch changes")
	w.Job("", "")
	_, stderr = w.Ralph(0, "check", "--deliver", "none", "--log-format", "json")
	e2e.Contains(t, "check --deliver none", stderr, "no run of the loop verified every spec at this commit")
	if strings.Contains(stderr, "no loop state was delivered") {
		t.Fatalf("check --deliver none judged a delivered state:\n%s", stderr)
	}
}
