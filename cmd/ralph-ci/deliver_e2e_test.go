package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	fake "github.com/ralph-ci/ralph-ci/reporters/prcomment/prcommenttest"
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
const ciAgent = `cat > /dev/null
n=$(ls "$PROMPTS" | wc -l)
echo "$RALPH_SPEC $RALPH_ITERATION" > "$PROMPTS/$((n + 1)).txt"
if [ "$RALPH_ITERATION" -le 2 ]; then
  echo "work of iteration $RALPH_ITERATION" >> work.txt
  echo "RALPH_STATUS: CONTINUE"
else
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
`

var ciRepoFiles = map[string]string{
	"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
github: {approvers: [carol]}
`,
	"specs/a.spec.md": prRepoFiles["specs/a.spec.md"],
	"agent.sh":        ciAgent,
	".gitignore":      ".ralph/\n",
}

type ciWorld struct {
	*prWorld
	bare, origin, seed, merge string
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Human", "GIT_AUTHOR_EMAIL=human@example.com", "GIT_COMMITTER_NAME=Human", "GIT_COMMITTER_EMAIL=human@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func newCIWorld(t *testing.T, bin string, files map[string]string) *ciWorld {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	w := &ciWorld{prWorld: &prWorld{t: t, bin: bin}, bare: filepath.Join(root, "origin.git")}
	w.origin = "file://" + w.bare
	runGit(t, root, "init", "--quiet", "--bare", "--initial-branch=master", w.bare)
	runGit(t, w.bare, "config", "uploadpack.allowAnySHA1InWant", "true")
	w.seed = filepath.Join(root, "seed")
	runGit(t, root, "clone", "--quiet", w.origin, w.seed)
	runGit(t, w.seed, "checkout", "--quiet", "-b", "master")
	writeRepoFiles(t, w.seed, map[string]string{"README.md": "hello\n", ".gitignore": ".ralph/\n", "ralph.yaml": files["ralph.yaml"]})
	runGit(t, w.seed, "add", ".")
	runGit(t, w.seed, "commit", "--quiet", "-m", "base")
	runGit(t, w.seed, "push", "--quiet", "origin", "master")
	runGit(t, w.seed, "checkout", "--quiet", "-b", "changes")
	writeRepoFiles(t, w.seed, files)
	runGit(t, w.seed, "add", ".")
	runGit(t, w.seed, "commit", "--quiet", "-m", "the spec")
	runGit(t, w.seed, "push", "--quiet", "origin", "changes")
	w.refreshPR()

	gh := t.TempDir()
	w.event, w.summary, w.output = filepath.Join(gh, "event.json"), filepath.Join(gh, "summary.md"), filepath.Join(gh, "output.txt")
	w.prompts = filepath.Join(gh, "prompts")
	if err := os.Mkdir(w.prompts, 0o755); err != nil {
		t.Fatal(err)
	}
	w.setEvent("pull_request.opened.json")
	w.srv = fake.New(t, "Codertocat", "Hello-World", 2, "", prAuthor.Login)
	w.srv.HeadFrom = func() string { return w.remote("refs/heads/changes") }
	w.srv.Perms["alice"], w.srv.Perms["Codertocat"] = "write", "admin"
	w.srv.SetFile(w.srv.BaseSHA, "ralph.yaml", files["ralph.yaml"])
	return w
}

func writeRepoFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// refreshPR moves refs/pull/2/head to the head branch and remakes
// refs/pull/2/merge, as GitHub does after a push.
func (w *ciWorld) refreshPR() {
	t := w.t
	runGit(t, w.seed, "fetch", "--quiet", "origin")
	head := runGit(t, w.seed, "rev-parse", "origin/changes")
	runGit(t, w.seed, "checkout", "--quiet", "--detach", "origin/master")
	runGit(t, w.seed, "merge", "--quiet", "--no-ff", "-m", "Merge "+head+" into master", head)
	w.merge = runGit(t, w.seed, "rev-parse", "HEAD")
	runGit(t, w.seed, "push", "--quiet", "-f", "origin", head+":refs/pull/2/head", w.merge+":refs/pull/2/merge")
	runGit(t, w.seed, "checkout", "--quiet", "-B", "changes", "origin/changes")
}

// job starts a workflow run: a fresh depth-1 checkout of sha at ref, as
// actions/checkout makes it.
func (w *ciWorld) job(sha, ref string) {
	t := w.t
	w.refreshPR()
	if sha == "" {
		sha, ref = w.merge, "refs/remotes/pull/2/merge"
	}
	w.dir, w.head = t.TempDir(), w.remote("refs/heads/changes")
	runGit(t, w.dir, "init", "--quiet")
	runGit(t, w.dir, "remote", "add", "origin", w.origin)
	runGit(t, w.dir, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic ***")
	runGit(t, w.dir, "-c", "protocol.version=2", "fetch", "--quiet", "--no-tags", "--prune", "--no-recurse-submodules", "--depth=1", "origin", "+"+sha+":"+ref)
	runGit(t, w.dir, "checkout", "--quiet", "--force", ref)
}

func (w *ciWorld) remote(ref string) string {
	out, err := exec.Command("git", "-C", w.bare, "rev-parse", "--verify", "--quiet", ref).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
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

func TestDeliveryAcrossWorkflowRuns(t *testing.T) {
	w := newCIWorld(t, buildBinary(t), ciRepoFiles)
	start := w.remote("refs/heads/changes")

	// Run 1: two rotations, pushed to the head branch.
	w.job("", "")
	w.ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	head1 := w.remote("refs/heads/changes")
	log := runGit(t, w.bare, "log", "--format=%H %P|%(trailers:key=Ralph-Iteration,valueonly,separator=)|%an", start+".."+head1)
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
	if files := runGit(t, w.bare, "diff", "--name-only", start, head1); files != "work.txt" {
		t.Fatalf("the pushed work holds %q, want work.txt only (no .ralph/ file)", files)
	}
	if st := w.remote(deliver.StateRef("changes")); st == "" || w.remote(st+"^1") != head1 {
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
	head2 := w.remote("refs/heads/changes")
	if head2 != head1 {
		t.Fatalf("run 2 changed nothing yet pushed %s", head2)
	}
	if r := w.record(); r.SHA != head2 || r.Status != tiers.StatusPending {
		t.Fatalf("checkpoint %+v, want pending for the pushed head %s", r, head2)
	}

	// Approved; check on a fresh checkout of the head passes.
	w.srv.React(w.checkpoint().ID, alice, "+1")
	w.job(head2, "refs/remotes/origin/changes")
	stdout, _ := w.ralph(0, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=passed")

	// A human pushes after the approval: the gate fails again.
	runGit(t, w.seed, "fetch", "--quiet", "origin")
	runGit(t, w.seed, "checkout", "--quiet", "-B", "changes", "origin/changes")
	writeRepoFiles(t, w.seed, map[string]string{"human.txt": "human\n"})
	runGit(t, w.seed, "add", ".")
	runGit(t, w.seed, "commit", "--quiet", "-m", "a human change")
	runGit(t, w.seed, "push", "--quiet", "origin", "changes")
	human := w.remote("refs/heads/changes")
	w.job(human, "refs/remotes/origin/changes")
	w.ralph(6, "check")
}
