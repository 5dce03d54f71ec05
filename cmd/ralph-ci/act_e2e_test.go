package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// The shipped example workflows in a real GitHub Actions runner: nektos/act
// in host mode (-P ubuntu-latest=-self-hosted: the steps run on this
// machine, no container), running examples/workflows/ralph-run.yml and
// ralph-check.yml unchanged, committed to the repository's default branch
// as a user would, and this repository's action.yml as
// `ralph-ci/ralph-ci@v1`. What a runner would fetch from GitHub is local:
//
//   - every remote action is mapped (act --local-repository) to a stand-in
//     of testdata/act (actions/checkout replays its git commands; setup-go,
//     cache, upload-artifact and the JUnit report are small), and the
//     Action to a copy of its files (action.yml, action/, go.mod, go.sum);
//   - "github.com" is one local server (actGitHub): the pull request's
//     origin over HTTP, requiring the job's token (internal/ghorigin), the
//     REST API (the fake, internal/ghfake, under /api/v3 as on GitHub
//     Enterprise Server), and a release of ralph-ci made of the binary under
//     test, which the Action's install step downloads and checks against
//     the release's checksums as it does a real one;
//   - npm and gh on the runner's PATH are stand-ins (testdata/act/bin): the
//     agent is a script, and gh cannot check attestations offline.
//
// The lifecycle: the pull request is opened (act pull_request) → the run
// workflow loops to 3/3 and presents the checkpoint (the job ends green:
// waiting is not a failure) → the protected merge is refused → the
// scheduled check (act schedule) finds the checkpoint waiting (green, the
// gate pending) → a person with write access reacts 👍 → the next
// scheduled check sets `ralph-ci` to success on the head → the merge goes
// through.

// deadProxy is an HTTP proxy nobody listens on (port 1 is tcpmux, never
// served here).
const deadProxy = "http://127.0.0.1:1"

// actVersion is the act release .ci/run installs (see there why pinned).
const actVersion = "0.2.89"

// actStandIns maps each remote action the example workflows and action.yml
// use (owner/name, any ref) to its stand-in folder under testdata/act.
var actStandIns = map[string]string{
	"actions/checkout":             "checkout",
	"actions/setup-go":             "setup-go",
	"actions/cache":                "cache",
	"actions/upload-artifact":      "upload-artifact",
	"actions/download-artifact":    "download-artifact",
	"mikepenz/action-junit-report": "junit-report",
}

func TestExampleWorkflowsInAct(t *testing.T) {
	start := time.Now()
	w, r := newActWorld(t, "ralph-run.yml", map[string]string{specA: ciRepoFiles[specA], "agent.sh": ciAgent})

	// The pull request is opened: the run workflow loops and presents the
	// checkpoint; waiting for a person ends the job green.
	out := r.run("ralph-ci.yml", "pull_request", r.payload("pull_request.opened.json"), w.PRJob())
	contains(t, "act pull_request", out, "ralph-ci install: installed ralph-ci_1.0.0_", "ralph-ci ended with awaiting_human")
	headSHA := w.Rev("refs/heads/changes")
	if files := ghorigin.Git(t, w.Bare, "diff", "--name-only", "master...changes"); !strings.Contains(files, "work.txt") {
		t.Fatalf("ralph-ci pushed no work to the pull request's branch (changes: %s)", files)
	}
	r.waiting(headSHA, specA)
	report := readFile(t, filepath.Join(r.artifacts, "ralph-ci-reports", "report.json"))
	contains(t, "the uploaded report", report, `"awaiting_human"`)
	contains(t, "the published JUnit report", readFile(t, filepath.Join(r.artifacts, "ralph-ci specs.xml")), specA)
	contains(t, "npm on the runner", readFile(t, filepath.Join(r.artifacts, "npm.log")), "install -g @anthropic-ai/claude-code")

	// The schedule while nobody has answered: the job ends green too (it
	// waits), and the gate stays pending.
	out = r.run("ralph-ci-check.yml", "schedule", r.payload("schedule.json"), r.defaultBranch())
	contains(t, "act schedule before the answer", out, "ralph-ci check exited with 6")
	w.wantGateState(headSHA, "pending", "awaiting approval: "+specA)

	r.approve(headSHA, specA)
	r.mergeQueue(headSHA)
	r.mergeOnceSuccess(headSHA)
	// The jobs fetched and pushed through "github.com", and it lets
	// nobody in without the token.
	if n := w.pushes(); n == 0 {
		t.Error("no push reached the origin over HTTP")
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
	w, r := newActWorld(t, "ralph-shards.yml", map[string]string{specA: ciRepoFiles[specA],
		"specs/b.spec.md": prRepoFiles["specs/b.spec.md"], "agent.sh": actShardAgent})

	out := r.run("ralph-ci.yml", "pull_request", r.payload("pull_request.opened.json"), w.PRJob())
	// Two specs, so two of the four shards plan allows.
	contains(t, "act pull_request", out, "Main Ralph loop, shard 1-of-4", "Main Ralph loop, shard 2-of-4", "downloaded 2 artifacts")
	headSHA := w.Rev("refs/heads/changes")
	files := ghorigin.Git(t, w.Bare, "diff", "--name-only", "master...changes")
	contains(t, "the pull request's branch", files, "specs_a_spec_md.txt", "specs_b_spec_md.txt")
	r.waiting(headSHA, specA)
	merged := readFile(t, filepath.Join(r.artifacts, "ralph-ci-reports", "report.json"))
	contains(t, "the merged report", merged, specA, "specs/b.spec.md", `"awaiting_human"`)

	// The answer as a reply this time: the comment starts the check
	// workflow at once, on the pull request's head (refs/pull/2/head,
	// which GitHub moves with every push).
	w.RefreshPR()
	w.srv.AddComment(alice, "1")
	out = r.run("ralph-ci-check.yml", "issue_comment", r.comment("alice", "1"), r.defaultBranch())
	contains(t, "act issue_comment", out, "[command]git checkout --progress --force refs/remotes/pull/2/head", "ralph-ci check exited with 0")
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
	w, r := newActWorld(t, "ralph-fork.yml", map[string]string{specA: ciRepoFiles[specA], "agent.sh": ciAgent})
	w.srv.HeadRepo, w.srv.BaseSHA = "someone/Hello-World", w.Rev("refs/heads/master")
	w.srv.Perms["mallory"] = "read"

	opened := r.payload("pull_request.opened.json")
	pr := opened["pull_request"].(map[string]any)
	pr["head"].(map[string]any)["sha"] = w.Rev("refs/heads/changes")
	pr["head"].(map[string]any)["repo"] = map[string]any{"full_name": "someone/Hello-World", "fork": true}
	pr["base"].(map[string]any)["sha"] = w.srv.BaseSHA // act's github.sha on pull_request_target
	out := r.run("ralph-ci.yml", "pull_request_target", opened, r.defaultBranch())
	contains(t, "act pull_request_target", out, "Main Check the fork's pull request")
	if strings.Contains(out, "Ralph loop on the fork's pull request") || w.Rev("refs/heads/ralph-ci/pr-2") != "" {
		t.Fatal("the loop ran on a fork's pull request nobody asked for")
	}

	out = r.run("ralph-ci.yml", "issue_comment", r.comment("mallory", "/ralph-ci run"), r.defaultBranch())
	contains(t, "act issue_comment by mallory", out, "@mallory asked to run on pull request #2 from a fork, but may not write")
	if w.Rev("refs/heads/ralph-ci/pr-2") != "" {
		t.Fatal("the loop ran at the request of someone who may not write")
	}

	r.run("ralph-ci.yml", "issue_comment", r.comment("alice", "/ralph-ci run"), r.defaultBranch())
	if w.Rev("refs/heads/ralph-ci/pr-2") == "" {
		t.Fatal("nothing was delivered to ralph-ci/pr-2 of the base repository")
	}
	if got := w.srv.OpenedPulls(); len(got) != 1 || got[0].Head != "ralph-ci/pr-2" || got[0].Base != "master" {
		t.Fatalf("pull requests opened: %+v, want one from ralph-ci/pr-2 into master", got)
	}
	t.Logf("the fork's lifecycle in act took %s", time.Since(start).Round(time.Millisecond))
}

// newActWorld is a repository whose default branch holds the example
// workflow workflow (as ralph-ci.yml) and ralph-check.yml (as
// ralph-ci-check.yml), with ciRepoFiles' config, and a pull request
// adding head; origin is served over HTTP requiring the job's token, the
// base branch requires ralph-ci, and act is ready to run.
func newActWorld(t *testing.T, workflow string, head map[string]string) (*ciWorld, *actRunner) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the example workflows in nektos/act")
	}
	act := actBinary(t)
	base := map[string]string{
		"README.md":                            "hello\n",
		".gitignore":                           ".ralph/\n",
		"ralph.yaml":                           ciRepoFiles["ralph.yaml"],
		".github/workflows/ralph-ci.yml":       readFile(t, "../../examples/workflows/"+workflow),
		".github/workflows/ralph-ci-check.yml": readFile(t, "../../examples/workflows/ralph-check.yml"),
	}
	o := ghorigin.New(t, "master", "changes", 2, base, head)
	o.ServeHTTP("test-token") // the job's token, as GitHub gives it (GITHUB_TOKEN)
	w := protect(ciWorldOf(t, ralphBinary(t), o, base["ralph.yaml"]))
	return w, newActRunner(t, act, w)
}

// waiting requires the gate pending on head for spec's checkpoint, and
// the protected merge refused.
func (r *actRunner) waiting(head, spec string) {
	r.t.Helper()
	r.w.wantGateState(head, "pending", "awaiting approval: "+spec)
	if code := r.w.merge(); code != http.StatusMethodNotAllowed {
		r.t.Fatalf("merge while the checkpoint waits: %d, want 405", code)
	}
}

// approve: a person who may approve reacts 👍 on spec's checkpoint;
// reactions start no workflow, so the next scheduled check finds it and
// sets ralph-ci to success on head.
func (r *actRunner) approve(head, spec string) {
	t, w := r.t, r.w
	t.Helper()
	c, _ := w.checkpointOf(spec)
	w.srv.React(c.ID, alice, "+1")
	out := r.run("ralph-ci-check.yml", "schedule", r.payload("schedule.json"), r.defaultBranch())
	contains(t, "act schedule", out, "ralph-ci check exited with 0")
	w.wantGateState(head, "success", "every checkpoint approved")
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
	w.srv.Ancestor = func(a, b string) bool {
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
	contains(t, "act merge_group", out, "ralph-ci check exited with 0")
	_, statuses := w.srv.Snapshot()
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
	w.wantGateState(head, "success", "every checkpoint approved")
	if code := w.merge(); code != http.StatusOK {
		t.Fatalf("merge once ralph-ci is success: %d, want 200", code)
	}
	if merged, at := w.srv.Merged(); !merged || at != head {
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

// pushes counts the pushes the origin served over HTTP.
func (w *ciWorld) pushes() int {
	n := 0
	for _, r := range w.Requests {
		if strings.HasPrefix(r, "POST ") && strings.Contains(r, "/git-receive-pack") {
			n++
		}
	}
	return n
}

// actBinary is the act to run: on PATH or in $(go env GOPATH)/bin, where
// .ci/run installs it, at actVersion. Missing, the test is skipped, unless
// in CI (CI=true), where it fails.
func actBinary(t *testing.T) string {
	t.Helper()
	candidates := []string{"act"}
	if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(gopath)), "bin", "act"))
	}
	for _, c := range candidates {
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		out, err := exec.Command(path, "--version").Output()
		if err == nil && strings.TrimSpace(string(out)) == "act version "+actVersion {
			return path
		}
	}
	msg := "nektos/act " + actVersion + " is not installed (go install github.com/nektos/act@v" + actVersion + "; .ci/run does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// actRunner runs act against w's origin and fake GitHub.
type actRunner struct {
	t         *testing.T
	act       string
	w         *ciWorld
	github    *actGitHub
	home      string // act's HOME, config and caches
	artifacts string // what the stand-ins upload ($ACT_ARTIFACTS)
	events    string // the event payloads given to act
	mappings  []string
}

func newActRunner(t *testing.T, act string, w *ciWorld) *actRunner {
	t.Helper()
	r := &actRunner{t: t, act: act, w: w, home: t.TempDir(), artifacts: t.TempDir(), events: t.TempDir()}
	r.github = newActGitHub(t, w, ralphRelease(t, w.bin))
	standIns, err := filepath.Abs(filepath.Join("testdata", "act"))
	if err != nil {
		t.Fatal(err)
	}
	action := actionCopy(t)
	examples, err := filepath.Glob("../../examples/workflows/*.yml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example workflows (%v)", err)
	}
	for _, uses := range remoteUses(t, append(examples, filepath.Join(action, "action.yml"))...) {
		name, _, _ := strings.Cut(uses, "@")
		dir, ok := actStandIns[name]
		switch {
		case name == "ralph-ci/ralph-ci":
			dir = action
		case ok:
			dir = filepath.Join(standIns, dir)
		default:
			t.Fatalf("the workflows use %s, which has no stand-in in testdata/act (act would fetch it from GitHub)", uses)
		}
		r.mappings = append(r.mappings, "--local-repository", uses+"="+dir)
	}
	return r
}

// run runs the jobs of workdir's .github/workflows/workflow that event
// starts with payload, in workdir (a checkout at the event's commit: act
// takes github.sha from it), with env (NAME=VALUE) for the github
// context; every job must succeed. It returns act's output.
func (r *actRunner) run(workflow, event string, payload map[string]any, workdir string, env ...string) string {
	t := r.t
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	eventFile := filepath.Join(r.events, event+".json")
	writeFile(t, eventFile, string(b))
	args := append([]string{event,
		"-C", workdir, "-W", filepath.Join(workdir, ".github", "workflows", workflow), "-e", eventFile,
		"-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-skip-checkout", "--no-cache-server",
		"--action-cache-path", filepath.Join(r.home, "actions"), "--defaultbranch", "master",
		"-a", "Codertocat", "-s", "GITHUB_TOKEN=test-token",
		"--env", "GITHUB_SERVER_URL=" + r.github.URL, "--env", "GITHUB_API_URL=" + r.github.URL + "/api/v3",
		"--env", "GITHUB_GRAPHQL_URL=" + r.github.URL + "/api/graphql", "--env", "GITHUB_REPOSITORY=Codertocat/Hello-World",
	}, r.mappings...)
	for _, kv := range env {
		args = append(args, "--env", kv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.act, args...)
	cmd.Dir, cmd.Env = workdir, r.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("act %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// env is act's environment, which in host mode is also every step's: this
// process's, without what a CI of its own set (GITHUB_*, RUNNER_*, RALPH_*,
// ACT_*), with the stand-ins' bin first on PATH and a HOME of its own. Its
// HTTP proxy is a closed port, so that anything (act, git, curl, ralph-ci)
// reaching past this machine fails instead of quietly using the network;
// the loopback servers are exempt.
func (r *actRunner) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "RUNNER_"), strings.HasPrefix(k, "RALPH_"),
			strings.HasPrefix(k, "ACT_"), strings.HasPrefix(k, "XDG_"), k == "HOME", k == "PATH", k == "CI",
			strings.HasSuffix(strings.ToLower(k), "_proxy"):
			continue
		}
		env = append(env, kv)
	}
	bin, err := filepath.Abs(filepath.Join("testdata", "act", "bin"))
	if err != nil {
		r.t.Fatal(err)
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+r.home,
		"XDG_CONFIG_HOME="+filepath.Join(r.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(r.home, ".cache"),
		"ACT_DISABLE_VERSION_CHECK=1", "ACT_ARTIFACTS="+r.artifacts, "PROMPTS="+r.w.prompts,
		"HTTP_PROXY="+deadProxy, "HTTPS_PROXY="+deadProxy, "http_proxy="+deadProxy, "https_proxy="+deadProxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
}

// payload is the webhook example payload of
// github/prchannel/testdata/events with the pull request's repository (a
// schedule's example belongs to another one).
func (r *actRunner) payload(name string) map[string]any {
	t := r.t
	t.Helper()
	read := func(name string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join("..", "..", "github", "prchannel", "testdata", "events", name))), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := read(name)
	m["repository"] = read("pull_request.opened.json")["repository"]
	return m
}

var usesRE = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*([^\s#]+)`)

// remoteUses are the remote actions (owner/name@ref) files use.
func remoteUses(t *testing.T, files ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, m := range usesRE.FindAllStringSubmatch(readFile(t, f), -1) {
			if u := m[1]; !strings.HasPrefix(u, "./") && !strings.HasPrefix(u, "docker://") && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// actionCopy is the Action as a workflow gets it from `uses:`: the files
// action.yml runs (action/) and reads (go.mod, go.sum), copied from this
// repository.
func actionCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"action.yml", "action/install.sh", "go.mod", "go.sum"} {
		writeFile(t, filepath.Join(dir, f), readFile(t, filepath.Join("..", "..", f)))
	}
	if err := os.Chmod(filepath.Join(dir, "action", "install.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
