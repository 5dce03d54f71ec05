package delivery

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// The shipped example workflows in a real GitHub Actions runner: nektos/act
// in host mode (-P ubuntu-latest=-self-hosted: the steps run on this
// machine, no container), running examples/workflows/*.yml unchanged,
// committed to the repository's default branch as a user would, and this
// repository's action.yml as `ralph-ci/ralph-ci@v1`. What a runner would
// fetch from GitHub is local (act_runner_test.go, act_github_test.go):
//
//   - every remote action is mapped (act --local-repository) to a stand-in
//     of testdata/act (actions/checkout replays its git commands; setup-go,
//     cache, upload- and download-artifact and the JUnit report are
//     small), and the Action to a copy of its files (action.yml, action/,
//     go.mod, go.sum);
//   - "github.com" is one local server (actGitHub): the pull request's
//     origin over HTTP, requiring the job's token (internal/ghorigin), the
//     REST API (the fake, internal/ghfake, under /api/v3 as on GitHub
//     Enterprise Server), and a release of ralph-ci made of the binary under
//     test, which the Action's install step downloads and checks against
//     the release's checksums as it does a real one;
//   - npm and gh on the runner's PATH are stand-ins (testdata/act/bin): the
//     agent is a script, and gh cannot check attestations offline.
//
// Unlike GitHub's runner: the steps run as this user on this machine;
// `permissions:` and `concurrency:` are not enforced (the fake's token may
// do everything); events are started by the test (a reaction, a comment,
// the schedule), and a merge_group run's GITHUB_REF is given to act, which
// would name the default branch.

// ralph-run.yml and ralph-check.yml: the pull request is opened (act
// pull_request) → the run workflow loops to 3/3 and presents the
// checkpoint (the job ends green: waiting is not a failure) → the
// protected merge is refused → the scheduled check (act schedule) finds
// the checkpoint waiting (green, the gate pending) → a person with write
// access reacts 👍 → the next scheduled check sets `ralph-ci` to success
// on the head → the merge queue's check passes the group's commit → the
// merge goes through.
func TestExampleWorkflowsInAct(t *testing.T) {
	start := time.Now()
	w, r := newActWorld(t, "ralph-run.yml", map[string]string{e2e.SpecA: e2e.CIRepoFiles[e2e.SpecA], "agent.sh": e2e.CIAgent})

	// The pull request is opened: the run workflow loops and presents the
	// checkpoint; waiting for a person ends the job green.
	out := r.run("ralph-ci.yml", "pull_request", r.payload("pull_request.opened.json"), w.PRJob())
	e2e.Contains(t, "act pull_request", out, "ralph-ci install: installed ralph-ci_1.0.0_", "ralph-ci ended with awaiting_human")
	headSHA := w.Rev("refs/heads/changes")
	if files := ghorigin.Git(t, w.Bare, "diff", "--name-only", "master...changes"); !strings.Contains(files, "work.txt") {
		t.Fatalf("ralph-ci pushed no work to the pull request's branch (changes: %s)", files)
	}
	r.waiting(headSHA, e2e.SpecA)
	report := readFile(t, filepath.Join(r.artifacts, "ralph-ci-reports", "report.json"))
	e2e.Contains(t, "the uploaded report", report, `"awaiting_human"`)
	e2e.Contains(t, "the published JUnit report", readFile(t, filepath.Join(r.artifacts, "ralph-ci specs.xml")), e2e.SpecA)
	e2e.Contains(t, "npm on the runner", readFile(t, filepath.Join(r.artifacts, "npm.log")), "install -g @anthropic-ai/claude-code")

	// The schedule while nobody has answered: the job ends green too (it
	// waits), and the gate stays pending.
	out = r.run("ralph-ci-check.yml", "schedule", r.payload("schedule.json"), r.defaultBranch())
	e2e.Contains(t, "act schedule before the answer", out, "ralph-ci check exited with 6")
	w.WantGateState(headSHA, "pending", "awaiting approval: "+e2e.SpecA)

	r.approve(headSHA, e2e.SpecA)
	r.mergeQueue(headSHA)
	r.mergeOnceSuccess(headSHA)
	// The jobs fetched and pushed through "github.com", and it lets
	// nobody in without the token.
	if pushes := w.Pushes(); len(pushes) == 0 || slices.ContainsFunc(pushes, func(tok string) bool { return tok != "test-token" }) {
		t.Errorf("pushes to the origin over HTTP with %q, want some, each with the job's token", pushes)
	}
	resp, err := http.Get(r.github.URL + "/Codertocat/Hello-World/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the origin answered git without the token: %s, want 401", resp.Status)
	}
	t.Logf("the lifecycle in act took %s", time.Since(start).Round(time.Millisecond))
}

// actShardAgent works once per spec (a file of its own, so that
// concurrent shards change different files), then claims DONE with the
// promise: stateless, it needs nothing outside the checkout.
const actShardAgent = `prompt=$(cat)
f=$(echo "$RALPH_SPEC" | tr '/.' '__').txt
if [ ! -f "$f" ]; then
  echo "work on $RALPH_SPEC" > "$f"
  echo "RALPH_STATUS: CONTINUE"
  exit 0
fi
printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// The sharded example: plan, a matrix of shards run as act runs a
// matrix (concurrent jobs pushing to the one branch), the integration
// presenting the checkpoint, the shards' reports downloaded and merged;
// then a person answers with a reply, which runs the check workflow on
// issue_comment, and the merge goes through.
func TestShardedExampleWorkflowInAct(t *testing.T) {
	start := time.Now()
	w, r := newActWorld(t, "ralph-shards.yml", map[string]string{e2e.SpecA: e2e.CIRepoFiles[e2e.SpecA],
		"specs/b.spec.md": e2e.PRRepoFiles["specs/b.spec.md"], "agent.sh": actShardAgent})

	out := r.run("ralph-ci.yml", "pull_request", r.payload("pull_request.opened.json"), w.PRJob())
	// Two specs, so two of the four shards plan allows.
	e2e.Contains(t, "act pull_request", out, "Main Ralph loop, shard 1-of-4", "Main Ralph loop, shard 2-of-4", "downloaded 2 artifacts")
	headSHA := w.Rev("refs/heads/changes")
	files := ghorigin.Git(t, w.Bare, "diff", "--name-only", "master...changes")
	e2e.Contains(t, "the pull request's branch", files, "specs_a_spec_md.txt", "specs_b_spec_md.txt")
	r.waiting(headSHA, e2e.SpecA)
	merged := readFile(t, filepath.Join(r.artifacts, "ralph-ci-reports", "report.json"))
	e2e.Contains(t, "the merged report", merged, e2e.SpecA, "specs/b.spec.md", `"awaiting_human"`)

	// The answer as a reply this time: the comment starts the check
	// workflow at once, on the pull request's head (refs/pull/2/head,
	// which GitHub moves with every push).
	w.RefreshPR()
	w.Srv.AddComment(e2e.Alice, "1")
	out = r.run("ralph-ci-check.yml", "issue_comment", r.comment("alice", "1"), r.defaultBranch())
	e2e.Contains(t, "act issue_comment", out, "[command]git checkout --progress --force refs/remotes/pull/2/head", "ralph-ci check exited with 0")
	r.mergeOnceSuccess(headSHA)
	t.Logf("the sharded lifecycle in act took %s", time.Since(start).Round(time.Millisecond))
}

// The fork example: a pull request from a fork (someone/Hello-World).
// On pull_request_target only its check job runs (the base's checkout,
// nothing of the fork's); a `/ralph-ci run` comment runs the loop only
// when its author may write, then on ralph-ci/pr-2 of the base
// repository, with a pull request opened from it.
func TestForkExampleWorkflowInAct(t *testing.T) {
	start := time.Now()
	w, r := newActWorld(t, "ralph-fork.yml", map[string]string{e2e.SpecA: e2e.CIRepoFiles[e2e.SpecA], "agent.sh": e2e.CIAgent})
	w.Srv.HeadRepo, w.Srv.BaseSHA = "someone/Hello-World", w.Rev("refs/heads/master")
	w.Srv.Perms["mallory"] = "read"

	opened := r.payload("pull_request.opened.json")
	pr := opened["pull_request"].(map[string]any)
	pr["head"].(map[string]any)["sha"] = w.Rev("refs/heads/changes")
	pr["head"].(map[string]any)["repo"] = map[string]any{"full_name": "someone/Hello-World", "fork": true}
	pr["base"].(map[string]any)["sha"] = w.Srv.BaseSHA // act's github.sha on pull_request_target
	out := r.run("ralph-ci.yml", "pull_request_target", opened, r.defaultBranch())
	e2e.Contains(t, "act pull_request_target", out, "Main Check the fork's pull request")
	if strings.Contains(out, "Ralph loop on the fork's pull request") || w.Rev("refs/heads/ralph-ci/pr-2") != "" {
		t.Fatal("the loop ran on a fork's pull request nobody asked for")
	}

	// The asker's permission is checked before the agent CLI is installed.
	out = r.run("ralph-ci.yml", "issue_comment", r.comment("mallory", "/ralph-ci run"), r.defaultBranch())
	e2e.Contains(t, "act issue_comment by mallory", out, "@mallory asked to run ralph-ci on a fork's pull request but may not write to the repository (read): nothing is installed or run")
	if strings.Contains(out, "Main Install Claude Code") || strings.Contains(out, "Main Ralph loop on the fork's pull request") {
		t.Fatalf("the agent CLI was installed, or the loop started, for someone who may not write:\n%s", out)
	}
	if w.Rev("refs/heads/ralph-ci/pr-2") != "" {
		t.Fatal("the loop ran at the request of someone who may not write")
	}

	r.run("ralph-ci.yml", "issue_comment", r.comment("alice", "/ralph-ci run"), r.defaultBranch())
	if w.Rev("refs/heads/ralph-ci/pr-2") == "" {
		t.Fatal("nothing was delivered to ralph-ci/pr-2 of the base repository")
	}
	if got := w.Srv.OpenedPulls(); len(got) != 1 || got[0].Head != "ralph-ci/pr-2" || got[0].Base != "master" {
		t.Fatalf("pull requests opened: %+v, want one from ralph-ci/pr-2 into master", got)
	}
	t.Logf("the fork's lifecycle in act took %s", time.Since(start).Round(time.Millisecond))
}

// newActWorld is a repository whose default branch holds the example
// workflow workflow (as ralph-ci.yml) and ralph-check.yml (as
// ralph-ci-check.yml), with CIRepoFiles' config, and a pull request
// adding head; origin is served over HTTP requiring the job's token, the
// base branch requires ralph-ci, and act is ready to run.
func newActWorld(t *testing.T, workflow string, head map[string]string) (*e2e.CIWorld, *actRunner) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the example workflows in nektos/act")
	}
	act := actBinary(t)
	base := map[string]string{
		"README.md":                            "hello\n",
		".gitignore":                           ".ralph/\n",
		"ralph.yaml":                           e2e.CIRepoFiles["ralph.yaml"],
		".github/workflows/ralph-ci.yml":       readFile(t, e2e.Root(t, "examples", "workflows", workflow)),
		".github/workflows/ralph-ci-check.yml": readFile(t, e2e.Root(t, "examples", "workflows", "ralph-check.yml")),
	}
	o := ghorigin.New(t, "master", "changes", 2, base, head)
	o.ServeHTTP("test-token") // the job's token, as GitHub gives it (GITHUB_TOKEN)
	w := e2e.Protect(e2e.CIWorldOf(t, e2e.RalphBinary(t), o, base["ralph.yaml"]))
	return w, newActRunner(t, act, w)
}

// waiting requires the gate pending on head for spec's checkpoint, and
// the protected merge refused.
func (r *actRunner) waiting(head, spec string) {
	r.t.Helper()
	r.w.WantGateState(head, "pending", "awaiting approval: "+spec)
	if code := r.w.MergePR(); code != http.StatusMethodNotAllowed {
		r.t.Fatalf("merge while the checkpoint waits: %d, want 405", code)
	}
}

// approve: a person who may approve reacts 👍 on spec's checkpoint;
// reactions start no workflow, so the next scheduled check finds it and
// sets ralph-ci to success on head.
func (r *actRunner) approve(head, spec string) {
	t, w := r.t, r.w
	t.Helper()
	c, _ := w.CheckpointOf(spec)
	w.Srv.React(c.ID, e2e.Alice, "+1")
	out := r.run("ralph-ci-check.yml", "schedule", r.payload("schedule.json"), r.defaultBranch())
	e2e.Contains(t, "act schedule", out, "ralph-ci check exited with 0")
	w.WantGateState(head, "success", "every checkpoint approved")
}

// mergeQueue puts the pull request at head in a merge queue: GitHub makes
// the group's commit (head merged into the base) on
// gh-readonly-queue/master/pr-2-<head> and starts the check workflow on
// merge_group there, whose ralph-ci status on the group's commit must be
// success.
func (r *actRunner) mergeQueue(head string) {
	t, w := r.t, r.w
	t.Helper()
	ref := "gh-readonly-queue/master/pr-2-" + head
	ghorigin.Git(t, w.Seed, "fetch", "--quiet", "origin")
	ghorigin.Git(t, w.Seed, "checkout", "--quiet", "--detach", "origin/master")
	ghorigin.Git(t, w.Seed, "merge", "--quiet", "--no-ff", "-m", "Merge pull request #2", head)
	group := ghorigin.Git(t, w.Seed, "rev-parse", "HEAD")
	ghorigin.Git(t, w.Seed, "push", "--quiet", "origin", group+":refs/heads/"+ref)
	w.Srv.Ancestor = func(a, b string) bool {
		return exec.Command("git", "-C", w.Bare, "merge-base", "--is-ancestor", a, b).Run() == nil
	}
	payload := r.payload("pull_request.opened.json")
	for k := range payload {
		if k != "repository" && k != "sender" {
			delete(payload, k)
		}
	}
	payload["action"] = "checks_requested"
	payload["merge_group"] = map[string]any{"head_sha": group, "head_ref": "refs/heads/" + ref,
		"base_sha": w.Rev("refs/heads/master"), "base_ref": "refs/heads/master"}
	// act names the ref of a merge_group run after the default branch:
	// GITHUB_REF is set as GitHub sets it, and github.sha is the
	// checkout's, the group's commit.
	out := r.run("ralph-ci-check.yml", "merge_group", payload, w.Checkout(group, "refs/remotes/origin/"+ref), "GITHUB_REF=refs/heads/"+ref)
	e2e.Contains(t, "act merge_group", out, "ralph-ci check exited with 0")
	_, statuses := w.Srv.Snapshot()
	var got []string
	for _, st := range statuses {
		if st.SHA == group && st.Context == "ralph-ci" {
			got = append(got, st.State+" "+st.Description)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "success ") || !strings.Contains(got[0], "#2") {
		t.Fatalf("ralph-ci on the group's commit: %q, want one success naming #2", got)
	}
}

// mergeOnceSuccess requires ralph-ci success on head, every checkpoint
// approved, and the protected merge of head going through.
func (r *actRunner) mergeOnceSuccess(head string) {
	t, w := r.t, r.w
	t.Helper()
	w.WantGateState(head, "success", "every checkpoint approved")
	if code := w.MergePR(); code != http.StatusOK {
		t.Fatalf("merge once ralph-ci is success: %d, want 200", code)
	}
	if merged, at := w.Srv.Merged(); !merged || at != head {
		t.Fatalf("merged %v at %.7s, want the head %.7s", merged, at, head)
	}
}

// comment is the payload of a comment by user on the pull request.
func (r *actRunner) comment(user, body string) map[string]any {
	c := r.payload("issue_comment.created.json")
	issue, comment := c["issue"].(map[string]any), c["comment"].(map[string]any)
	issue["number"] = 2
	issue["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/2"}
	comment["body"], comment["user"] = body, map[string]any{"login": user, "type": "User"}
	c["sender"] = map[string]any{"login": user, "type": "User"}
	return c
}

// defaultBranch is a checkout of the default branch, where act runs a
// scheduled workflow.
func (r *actRunner) defaultBranch() string {
	return r.w.Checkout(r.w.Rev("refs/heads/master"), "refs/remotes/origin/master")
}
