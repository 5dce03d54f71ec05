package main

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// Delivery end to end through the built binary, over several workflow
// runs as GitHub Actions makes them: a bare origin holding the pull
// request of the real webhook payloads (Codertocat/Hello-World#2, head
// branch "changes", base "master") with refs/pull/2/head and
// refs/pull/2/merge; each job a fresh depth-1 checkout of the merge ref,
// as actions/checkout makes it; the fake GitHub's pull request follows
// origin's head branch.

// ciAgent writes work in its first two rotations (CONTINUE), then claims
// DONE with the promise and changes nothing. It notes each rotation's
// spec and iteration in $PROMPTS (outside the checkout).
const ciAgent = `prompt=$(cat)
if grep -qi extraheader .git/config 2>/dev/null; then echo "iteration $RALPH_ITERATION" >> "$PROMPTS.leak"; fi
n=$(ls "$PROMPTS" | wc -l)
echo "$RALPH_SPEC $RALPH_ITERATION" > "$PROMPTS/$((n + 1)).txt"
if [ "$RALPH_ITERATION" -le 2 ]; then
  echo "work of iteration $RALPH_ITERATION" >> work.txt
  echo "RALPH_STATUS: CONTINUE"
else
  printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
`

var ciRepoFiles = map[string]string{
	"ralph.yaml":      prRepoFiles["ralph.yaml"],
	"specs/a.spec.md": prRepoFiles["specs/a.spec.md"],
	"agent.sh":        ciAgent,
	".gitignore":      ".ralph/\n",
}

// ciWorld is the pull request of prWorld held by a bare origin: each job
// is a fresh checkout (w.dir), and the fake's pull request follows
// origin's head branch.
type ciWorld struct {
	*prWorld
	*ghorigin.Origin
}

// The origins a delivery test can run against: a file:// one (the
// default), and one served over HTTP that requires the job's token, as a
// private repository does, with actions/checkout's persist-credentials
// true (the token in .git/config) or false (ralph-ci hands it to its own
// fetch and push).
const (
	fileOrigin      = "file"
	httpOrigin      = "http, persist-credentials true"
	httpOriginNoPer = "http, persist-credentials false"
)

func newCIWorld(t *testing.T, bin string, files map[string]string, origin ...string) *ciWorld {
	t.Helper()
	files = maps.Clone(files)
	files["ralph.yaml"] = withRecords(files["ralph.yaml"])
	o := ghorigin.New(t, "master", "changes", 2, map[string]string{"README.md": "hello\n", ".gitignore": ".ralph/\n", "ralph.yaml": files["ralph.yaml"]}, files)
	return ciWorldOf(t, bin, o, files["ralph.yaml"], origin...)
}

// ciWorldOf is the ciWorld of origin o, whose base has baseConfig, served
// as origin says (fileOrigin by default).
func ciWorldOf(t *testing.T, bin string, o *ghorigin.Origin, baseConfig string, origin ...string) *ciWorld {
	t.Helper()
	w := &ciWorld{prWorld: &prWorld{t: t, bin: bin}, Origin: o}
	if len(origin) > 0 && origin[0] != fileOrigin {
		o.ServeHTTP("test-token") // GITHUB_TOKEN of prWorld.env
		o.NoPersist = origin[0] == httpOriginNoPer
		w.extraEnv = append(w.extraEnv, "GITHUB_SERVER_URL="+o.ServerURL)
	}
	w.startGitHub(baseConfig)
	w.srv.HeadFrom, w.srv.HeadRef = func() string { return w.Rev("refs/heads/changes") }, "changes"
	// The contents API reads origin; the fake's base commit is master.
	w.srv.Files = map[string]map[string]string{}
	w.srv.FilesFrom = func(ref, path string) (string, bool) {
		if ref == w.srv.BaseSHA {
			ref = "master"
		}
		out, err := exec.Command("git", "-C", w.Bare, "cat-file", "blob", ref+":"+path).Output() // a file, not a folder
		return string(out), err == nil
	}
	return w
}

// job starts a workflow run in a fresh checkout of sha at ref ("": the
// pull request's merge ref).
func (w *ciWorld) job(sha, ref string) {
	if sha == "" {
		w.dir = w.PRJob()
	} else {
		w.dir = w.Checkout(sha, ref)
	}
	w.head = w.Rev("refs/heads/changes")
}

// personPushes pushes a commit of a person to the head branch.
func (w *ciWorld) personPushes() string {
	return w.Push("changes", map[string]string{"human.txt": "human\n"}, "a human change")
}

// iterations are the iterations the agent ran, in order.
func (w *ciWorld) iterations() []string {
	var out []string
	for i := 1; ; i++ {
		b, err := os.ReadFile(filepath.Join(w.prompts, strconv.Itoa(i)+".txt"))
		if err != nil {
			return out
		}
		_, it, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		out = append(out, it)
	}
}

// TestDeliveryAcrossWorkflowRuns runs against each origin: fetch, push
// and the state ref work whatever persist-credentials says, and the
// agent never finds the token's header in .git/config.
func TestDeliveryAcrossWorkflowRuns(t *testing.T) {
	bin := ralphBinary(t)
	for _, origin := range []string{fileOrigin, httpOrigin, httpOriginNoPer} {
		t.Run(origin, func(t *testing.T) {
			w := newCIWorld(t, bin, ciRepoFiles, origin)
			deliveryAcrossWorkflowRuns(t, w)
			if leak, err := os.ReadFile(w.prompts + ".leak"); err == nil {
				t.Errorf("the agent found an extraheader in .git/config: %s", leak)
			}
			if origin != fileOrigin && len(w.Requests) == 0 {
				t.Error("nothing was fetched or pushed over HTTP")
			}
		})
	}
}

func deliveryAcrossWorkflowRuns(t *testing.T, w *ciWorld) {
	start := w.Rev("refs/heads/changes")

	// Run 1: two rotations, pushed to the head branch.
	w.job("", "")
	w.ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
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
	out, _ := os.ReadFile(w.output)
	contains(t, "GITHUB_OUTPUT", string(out), "branch=changes", "head-sha="+head1, "pull-request=2")

	// Run 2, a fresh checkout: resumes at iteration 3, repeats nothing,
	// reaches 3/3 and presents the checkpoint for the pushed head.
	w.job("", "")
	w.ralph(6, "run", "--deliver", "pr")
	if got := strings.Join(w.iterations(), ","); got != "1,2,3,4,5" {
		t.Fatalf("iterations %s, want 1,2,3,4,5 (run 2 starts at 3)", got)
	}
	head2 := w.Rev("refs/heads/changes")
	if head2 != head1 {
		t.Fatalf("run 2 changed nothing yet pushed %s", head2)
	}
	if r := w.record(); r.SHA != head2 || r.Status != tiers.StatusPending {
		t.Fatalf("checkpoint %+v, want pending for the pushed head %s", r, head2)
	}

	// Approved; check on a fresh checkout of the head passes.
	w.srv.React(w.checkpoint().ID, alice, "+1")
	w.job(head2, "refs/remotes/origin/changes")
	stdout, _ := w.ralph(0, "check", "--deliver", "pr", "--log-format", "json")
	contains(t, "check", stdout, specA+"\tcheckpoint=passed")

	// A human pushes after the approval: the gate fails again.
	human := w.personPushes()
	w.job(human, "refs/remotes/origin/changes")
	w.ralph(6, "check", "--deliver", "pr")
}

// TestDeliveryGateJudgesTheHead: check --deliver pr passes only when the
// state delivered for the head branch describes the head, with every spec
// 3/3 (auto tier here, so no checkpoint hides the rule).
func TestDeliveryGateJudgesTheHead(t *testing.T) {
	files := maps.Clone(ciRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["specs/a.spec.md"] = "# A\n"
	w := newCIWorld(t, ralphBinary(t), files)
	w.job("", "")
	w.ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	w.job("", "")
	_, stderr := w.ralph(3, "check", "--deliver", "pr", "--log-format", "json")
	contains(t, "check after run 1", stderr, "specs/a.spec.md is not verified 3/3")
	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr")
	w.job("", "")
	w.ralph(0, "check", "--deliver", "pr", "--log-format", "json")
	w.ralph(0, "check") // without delivery, the gate has no verify-tier spec to wait for
	w.personPushes()
	w.job("", "")
	_, stderr = w.ralph(3, "check", "--deliver", "pr")
	contains(t, "check after a human push", stderr, "the loop's state describes commit")
}

// ralphEnv runs the binary with extra environment and requires want.
func (w *ciWorld) ralphEnv(want int, extra []string, args ...string) (stdout, stderr string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd, o, e := w.command(ctx, args...)
	cmd.Env = append(cmd.Env, extra...)
	w.exit(want, cmd.Run(), args, o, e)
	return o.String(), e.String()
}

// TestDeliveryOffAPullRequest: a workflow_dispatch run works on a branch
// of its own and opens a pull request; the next run continues on that
// branch and updates the same pull request.
func TestDeliveryOffAPullRequest(t *testing.T) {
	w := newCIWorld(t, ralphBinary(t), ciRepoFiles)
	w.setEvent("push.json") // no pull request in it; its repository is the same
	dispatch := []string{"GITHUB_EVENT_NAME=workflow_dispatch", "GITHUB_REF_NAME=changes"}
	tip := w.Rev("refs/heads/changes")
	w.job(tip, "refs/remotes/origin/changes")
	w.ralphEnv(3, dispatch, "run", "--deliver", "pr", "--max-rotations", "1")
	own := w.Rev("refs/heads/ralph-ci/changes")
	if own == "" || w.Rev(own+"^1") != tip || w.Rev("refs/heads/changes") != tip {
		t.Fatalf("own branch %q is not one commit on top of %s (changes now %s)", own, tip, w.Rev("refs/heads/changes"))
	}
	pulls := w.srv.OpenedPulls()
	if len(pulls) != 1 || pulls[0].Head != "ralph-ci/changes" || pulls[0].Base != "master" {
		t.Fatalf("pull requests %+v, want one from ralph-ci/changes into master", pulls)
	}
	out, _ := os.ReadFile(w.output)
	contains(t, "GITHUB_OUTPUT", string(out), "branch=ralph-ci/changes", "head-sha="+own, "pull-request="+strconv.Itoa(pulls[0].Number))

	w.job(tip, "refs/remotes/origin/changes")
	w.ralphEnv(3, dispatch, "run", "--deliver", "pr", "--max-rotations", "1")
	if got := strings.Join(w.iterations(), ","); got != "1,2" {
		t.Fatalf("iterations %s, want 1,2", got)
	}
	if w.Rev("refs/heads/ralph-ci/changes^1") != own || len(w.srv.OpenedPulls()) != 1 {
		t.Fatalf("run 2 did not continue the branch and its one pull request: %+v", w.srv.OpenedPulls())
	}
}

// raceAgent is ciAgent that, at iteration $RACE_AT, first has a person
// push $RACE_FILE to the head branch (a commit landing between two
// rotations), and at iteration $KILL_AT, once, kills ralph-ci (kill -9)
// after writing its work.
const raceAgent = `if [ "$RALPH_ITERATION" = "$RACE_AT" ]; then
  git -C "$SEED" fetch -q origin && git -C "$SEED" checkout -q -B changes origin/changes &&
  echo "by a person" >> "$SEED/$RACE_FILE" && git -C "$SEED" add -A && git -C "$SEED" commit -qm "a person's change" &&
  git -C "$SEED" push -q origin changes || exit 9
fi
` + ciAgent + `if [ "$RALPH_ITERATION" = "$KILL_AT" ] && [ ! -e "$PROMPTS/../killed" ]; then
  touch "$PROMPTS/../killed"; kill -9 $(awk '{print $4}' /proc/$PPID/stat) # ralph-ci, the parent of its shepherd
fi
`

func TestDeliveryPushRace(t *testing.T) {
	files := maps.Clone(ciRepoFiles)
	files["agent.sh"] = raceAgent
	files["ralph.yaml"] += "box: {landlock: off}\n" // the agent plays a person pushing from a clone outside its work tree
	bin := ralphBinary(t)
	person := append([]string{"RACE_AT=2"}, ghorigin.PersonEnv...)
	t.Run("rebased and counted", func(t *testing.T) {
		w := newCIWorld(t, bin, files)
		w.job("", "")
		_, stderr := w.ralphEnv(3, append(slices.Clone(person), "SEED="+w.Seed, "RACE_FILE=human.txt"), "run", "--deliver", "pr", "--max-rotations", "2", "--log-format", "json")
		log := ghorigin.Git(t, w.Bare, "log", "--format=%an %s", "refs/heads/changes")
		want := "ralph-ci ralph-ci: specs/a.spec.md, coder iteration 2: CONTINUE\nHuman a person's change\nralph-ci ralph-ci: specs/a.spec.md, coder iteration 1: CONTINUE\nHuman the pull request's change\nHuman base"
		if log != want {
			t.Fatalf("origin's history:\n%s\nwant:\n%s", log, want)
		}
		contains(t, "the log", stderr, `"files":["human.txt"]`, "files changed outside the loop count as changed")
	})
	t.Run("conflict rescued", func(t *testing.T) {
		w := newCIWorld(t, bin, files)
		w.job("", "")
		_, stderr := w.ralphEnv(1, append(slices.Clone(person), "SEED="+w.Seed, "RACE_FILE=work.txt"), "run", "--deliver", "pr", "--max-rotations", "2")
		contains(t, "stderr", stderr, "conflict", "ralph-ci/rescue-changes-")
		out := ghorigin.Git(t, w.Bare, "for-each-ref", "--format=%(refname)", "refs/heads/ralph-ci/")
		if !strings.HasPrefix(out, "refs/heads/ralph-ci/rescue-changes-") {
			t.Fatalf("no rescue branch: %q", out)
		}
		if got := ghorigin.Git(t, w.Bare, "show", out+":work.txt"); got != "work of iteration 1\nwork of iteration 2" {
			t.Fatalf("the rescue holds %q", got)
		}
	})
	t.Run("killed before the push", func(t *testing.T) {
		w := newCIWorld(t, bin, files)
		w.job("", "")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd, _, _ := w.command(ctx, "run", "--deliver", "pr", "--max-rotations", "2")
		cmd.Env = append(cmd.Env, "KILL_AT=2")
		var ee *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the first run was not killed: %v", err)
		}
		if got := ghorigin.Git(t, w.Bare, "log", "-1", "--format=%(trailers:key=Ralph-Iteration,valueonly,separator=)", "refs/heads/changes"); got != "1" {
			t.Fatalf("origin's head is iteration %q before the second run, want 1", got)
		}
		// The same checkout (a self-hosted runner's workspace) runs again.
		w.ralphEnv(3, []string{"KILL_AT=2"}, "run", "--deliver", "pr", "--max-rotations", "1")
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
	files := maps.Clone(ciRepoFiles)
	files["ralph.yaml"] += "budgets: {max_spec_rotations: 3}\n"
	files["agent.sh"] = "cat > /dev/null\nn=$(ls \"$PROMPTS\" | wc -l)\necho \"$RALPH_SPEC $RALPH_ITERATION\" > \"$PROMPTS/$((n + 1)).txt\"\necho 'RALPH_STATUS: CONTINUE'\n"
	w := newCIWorld(t, ralphBinary(t), files)
	for run := 1; run <= 3; run++ {
		w.job("", "")
		w.ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	}
	if got := strings.Join(w.iterations(), ","); got != "1,2,3" {
		t.Fatalf("agent calls at iterations %s, want 1,2,3", got)
	}
	w.job("", "")
	_, stderr := w.ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	contains(t, "the fourth run", stderr, "budgets.max_spec_rotations (3) reached")
	if strings.Contains(stderr, "run again to continue") || len(w.iterations()) != 3 {
		t.Fatalf("the fourth run called the agent or invites another run:\n%s", stderr)
	}
}
