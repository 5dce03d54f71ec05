package delivery

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// TestDeliveryAcrossWorkflowRuns runs against each origin: fetch, push
// and the state ref work whatever persist-credentials says, and the
// agent never finds the token's header in .git/config.
func TestDeliveryAcrossWorkflowRuns(t *testing.T) {
	bin := e2e.RalphBinary(t)
	for _, origin := range []string{e2e.FileOrigin, e2e.HTTPOrigin, e2e.HTTPOriginNoPer} {
		t.Run(origin, func(t *testing.T) {
			w := e2e.NewCIWorld(t, bin, e2e.CIRepoFiles, origin)
			deliveryAcrossWorkflowRuns(t, w)
			if leak, err := os.ReadFile(w.Prompts + ".leak"); err == nil {
				t.Errorf("the agent found an extraheader in .git/config: %s", leak)
			}
			if origin != e2e.FileOrigin && len(w.Requests) == 0 {
				t.Error("nothing was fetched or pushed over HTTP")
			}
		})
	}
}

func deliveryAcrossWorkflowRuns(t *testing.T, w *e2e.CIWorld) {
	start := w.Rev("refs/heads/changes")

	// Run 1: two rotations, pushed to the head branch.
	w.Job("", "")
	w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	head1 := w.Rev("refs/heads/changes")
	log := ghorigin.Git(t, w.Bare, "log", "--format=%H %P|%(trailers:key=Ralph-Iteration,valueonly,separator=)|%an", start+".."+head1)
	lines := strings.Split(log, "\n")
	if len(lines) != 2 {
		t.Fatalf("origin's head branch got %d commits, want 2:\n%s", len(lines), log)
	}
	for i, l := range lines { // newest first, each the child of the next
		f := strings.Split(l, "|")
		ids := strings.Fields(f[0])
		if len(f) != 3 || len(ids) != 2 || f[2] != "ralph-ci" || f[1] != strconv.Itoa(2-i) || (i == 0) != (ids[1] == strings.Fields(lines[1])[0]) {
			t.Fatalf("commit %q: want a linear commit by ralph-ci with Ralph-Iteration %d", l, 2-i)
		}
	}
	if files := ghorigin.Git(t, w.Bare, "diff", "--name-only", start, head1); files != "work.txt" {
		t.Fatalf("the pushed work holds %q, want work.txt only (no .ralph/ file)", files)
	}
	if st := w.Rev(deliver.StateRef("changes")); st == "" || w.Rev(st+"^1") != head1 {
		t.Fatalf("state ref %q does not describe the pushed head", st)
	}
	out, _ := os.ReadFile(w.Output)
	e2e.Contains(t, "GITHUB_OUTPUT", string(out), "branch=changes", "head-sha="+head1, "pull-request=2")

	// Run 2, a fresh checkout: resumes at iteration 3, repeats nothing,
	// reaches 3/3 and presents the checkpoint for the pushed head.
	w.Job("", "")
	w.Ralph(6, "run", "--deliver", "pr")
	if got := strings.Join(w.Iterations(), ","); got != "1,2,3,4,5" {
		t.Fatalf("iterations %s, want 1,2,3,4,5 (run 2 starts at 3)", got)
	}
	head2 := w.Rev("refs/heads/changes")
	if head2 != head1 {
		t.Fatalf("run 2 changed nothing yet pushed %s", head2)
	}
	if r := w.Record(); r.SHA != head2 || r.Status != tiers.StatusPending {
		t.Fatalf("checkpoint %+v, want pending for the pushed head %s", r, head2)
	}

	// Approved; check on a fresh checkout of the head passes.
	w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1")
	w.Job(head2, "refs/remotes/origin/changes")
	stdout, _ := w.Ralph(0, "check", "--deliver", "pr", "--log-format", "json")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")

	// A human pushes after the approval: the gate fails again.
	human := w.PersonPushes()
	w.Job(human, "refs/remotes/origin/changes")
	w.Ralph(6, "check", "--deliver", "pr")
}

// TestDeliveryGateJudgesTheHead: check --deliver pr passes only when the
// state delivered for the head branch describes the head, with every spec
// 3/3 (auto tier here, so no checkpoint hides the rule).
func TestDeliveryGateJudgesTheHead(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["specs/a.spec.md"] = "# A\n"
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	w.Job("", "")
	w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	w.Job("", "")
	_, stderr := w.Ralph(3, "check", "--deliver", "pr", "--log-format", "json")
	e2e.Contains(t, "check after run 1", stderr, "specs/a.spec.md is not verified 3/3")
	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr")
	w.Job("", "")
	w.Ralph(0, "check", "--deliver", "pr", "--log-format", "json")
	w.Ralph(0, "check") // without delivery, the gate has no verify-tier spec to wait for
	w.PersonPushes()
	w.Job("", "")
	_, stderr = w.Ralph(3, "check", "--deliver", "pr")
	e2e.Contains(t, "check after a human push", stderr, "the loop's state describes commit")
}

// TestDeliveryOffAPullRequest: a workflow_dispatch run works on a branch
// of its own and opens a pull request; the next run continues on that
// branch and updates the same pull request.
func TestDeliveryOffAPullRequest(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles)
	w.SetEvent("push.json") // no pull request in it; its repository is the same
	dispatch := []string{"GITHUB_EVENT_NAME=workflow_dispatch", "GITHUB_REF_NAME=changes"}
	tip := w.Rev("refs/heads/changes")
	w.Job(tip, "refs/remotes/origin/changes")
	w.RalphEnv(3, dispatch, "run", "--deliver", "pr", "--max-rotations", "1")
	own := w.Rev("refs/heads/ralph-ci/changes")
	if own == "" || w.Rev(own+"^1") != tip || w.Rev("refs/heads/changes") != tip {
		t.Fatalf("own branch %q is not one commit on top of %s (changes now %s)", own, tip, w.Rev("refs/heads/changes"))
	}
	pulls := w.Srv.OpenedPulls()
	if len(pulls) != 1 || pulls[0].Head != "ralph-ci/changes" || pulls[0].Base != "master" {
		t.Fatalf("pull requests %+v, want one from ralph-ci/changes into master", pulls)
	}
	out, _ := os.ReadFile(w.Output)
	e2e.Contains(t, "GITHUB_OUTPUT", string(out), "branch=ralph-ci/changes", "head-sha="+own, "pull-request="+strconv.Itoa(pulls[0].Number))

	w.Job(tip, "refs/remotes/origin/changes")
	w.RalphEnv(3, dispatch, "run", "--deliver", "pr", "--max-rotations", "1")
	if got := strings.Join(w.Iterations(), ","); got != "1,2" {
		t.Fatalf("iterations %s, want 1,2", got)
	}
	if w.Rev("refs/heads/ralph-ci/changes^1") != own || len(w.Srv.OpenedPulls()) != 1 {
		t.Fatalf("run 2 did not continue the branch and its one pull request: %+v", w.Srv.OpenedPulls())
	}
}

// raceAgent is CIAgent that, at iteration $RACE_AT, first has a person
// push $RACE_FILE to the head branch (a commit landing between two
// rotations), and at iteration $KILL_AT, once, kills ralph-ci (kill -9)
// after writing its work.
const raceAgent = `if [ "$RALPH_ITERATION" = "$RACE_AT" ]; then
  git -C "$SEED" fetch -q origin && git -C "$SEED" checkout -q -B changes origin/changes &&
  echo "by a person" >> "$SEED/$RACE_FILE" && git -C "$SEED" add -A && git -C "$SEED" commit -qm "a person's change" &&
  git -C "$SEED" push -q origin changes || exit 9
fi
` + e2e.CIAgent + `if [ "$RALPH_ITERATION" = "$KILL_AT" ] && [ ! -e "$PROMPTS/../killed" ]; then
  touch "$PROMPTS/../killed"; kill -9 $(awk '{print $4}' /proc/$PPID/stat) # ralph-ci, the parent of its shepherd
fi
`

func TestDeliveryPushRace(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["agent.sh"] = raceAgent
	// The agent plays a person pushing from a clone outside its work
	// tree (no Landlock) and kills ralph-ci, which only ralph-ci's own
	// user may (no user of its own).
	files["ralph.yaml"] += "box: {landlock: off, user: off}\n"
	bin := e2e.RalphBinary(t)
	person := append([]string{"RACE_AT=2"}, ghorigin.PersonEnv...)
	t.Run("rebased and counted", func(t *testing.T) {
		w := e2e.NewCIWorld(t, bin, files)
		w.Job("", "")
		_, stderr := w.RalphEnv(3, append(slices.Clone(person), "SEED="+w.Seed, "RACE_FILE=human.txt"), "run", "--deliver", "pr", "--max-rotations", "2", "--log-format", "json")
		log := ghorigin.Git(t, w.Bare, "log", "--format=%an %s", "refs/heads/changes")
		want := "ralph-ci ralph-ci: specs/a.spec.md, coder iteration 2: CONTINUE\nHuman a person's change\nralph-ci ralph-ci: specs/a.spec.md, coder iteration 1: CONTINUE\nHuman the pull request's change\nHuman base"
		if log != want {
			t.Fatalf("origin's history:\n%s\nwant:\n%s", log, want)
		}
		e2e.Contains(t, "the log", stderr, `"files":["human.txt"]`, "files changed outside the loop count as changed")
	})
	t.Run("conflict rescued", func(t *testing.T) {
		w := e2e.NewCIWorld(t, bin, files)
		w.Job("", "")
		_, stderr := w.RalphEnv(1, append(slices.Clone(person), "SEED="+w.Seed, "RACE_FILE=work.txt"), "run", "--deliver", "pr", "--max-rotations", "2")
		e2e.Contains(t, "stderr", stderr, "conflict", "ralph-ci/rescue-changes-")
		out := ghorigin.Git(t, w.Bare, "for-each-ref", "--format=%(refname)", "refs/heads/ralph-ci/")
		if !strings.HasPrefix(out, "refs/heads/ralph-ci/rescue-changes-") {
			t.Fatalf("no rescue branch: %q", out)
		}
		if got := ghorigin.Git(t, w.Bare, "show", out+":work.txt"); got != "work of iteration 1\nwork of iteration 2" {
			t.Fatalf("the rescue holds %q", got)
		}
	})
	t.Run("killed before the push", func(t *testing.T) {
		w := e2e.NewCIWorld(t, bin, files)
		w.Job("", "")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd, _, _ := w.Command(ctx, "run", "--deliver", "pr", "--max-rotations", "2")
		cmd.Env = append(cmd.Env, "KILL_AT=2")
		var ee *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the first run was not killed: %v", err)
		}
		if got := ghorigin.Git(t, w.Bare, "log", "-1", "--format=%(trailers:key=Ralph-Iteration,valueonly,separator=)", "refs/heads/changes"); got != "1" {
			t.Fatalf("origin's head is iteration %q before the second run, want 1", got)
		}
		// The same checkout (a self-hosted runner's workspace) runs again.
		w.RalphEnv(3, []string{"KILL_AT=2"}, "run", "--deliver", "pr", "--max-rotations", "1")
		log := ghorigin.Git(t, w.Bare, "log", "--format=%(trailers:key=Ralph-Iteration,valueonly,separator=)", "refs/heads/changes")
		if log != "2\n1" { // the two commits before them have no trailers
			t.Fatalf("iterations committed on origin: %q, want 2 then 1, each once", log)
		}
	})
}

// TestDeliveryBudgetsAcrossRuns: budgets.max_spec_rotations counts the
// rotations of all runs: three runs of --max-rotations 2 call the agent
// three times in all, and a further run none, saying why.
func TestDeliveryBudgetsAcrossRuns(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "budgets: {max_spec_rotations: 3}\n"
	files["agent.sh"] = "cat > /dev/null\nn=$(ls \"$PROMPTS\" | wc -l)\necho \"$RALPH_SPEC $RALPH_ITERATION\" > \"$PROMPTS/$((n + 1)).txt\"\necho 'RALPH_STATUS: CONTINUE'\n"
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	for run := 1; run <= 3; run++ {
		w.Job("", "")
		w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	}
	if got := strings.Join(w.Iterations(), ","); got != "1,2,3" {
		t.Fatalf("agent calls at iterations %s, want 1,2,3", got)
	}
	w.Job("", "")
	_, stderr := w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	e2e.Contains(t, "the fourth run", stderr, "budgets.max_spec_rotations (3) reached")
	if strings.Contains(stderr, "run again to continue") || len(w.Iterations()) != 3 {
		t.Fatalf("the fourth run called the agent or invites another run:\n%s", stderr)
	}
}
