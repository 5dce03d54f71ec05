package deliver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// world is a bare "origin" as GitHub holds it for pull request #7: main,
// the head branch feature, refs/pull/7/head and refs/pull/7/merge.
type world struct {
	t      *testing.T
	origin string // file:// URL of the bare repository
	bare   string // its path
	seed   string // a full clone playing "another person"
	merge  string // the merge commit of refs/pull/7/merge
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Human", "GIT_AUTHOR_EMAIL=human@example.com",
		"GIT_COMMITTER_NAME=Human", "GIT_COMMITTER_EMAIL=human@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newWorld builds origin with main (README.md), feature (one more commit,
// spec.md) and the pull request refs.
func newWorld(t *testing.T) *world {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	w := &world{t: t, bare: filepath.Join(root, "origin.git")}
	w.origin = "file://" + w.bare
	git(t, root, "init", "--quiet", "--bare", "--initial-branch=main", w.bare)
	git(t, w.bare, "config", "uploadpack.allowAnySHA1InWant", "true")
	w.seed = filepath.Join(root, "seed")
	git(t, root, "clone", "--quiet", w.origin, w.seed)
	git(t, w.seed, "checkout", "--quiet", "-b", "main")
	write(t, w.seed, "README.md", "hello\n")
	write(t, w.seed, "app.txt", "one\ntwo\nthree\n")
	git(t, w.seed, "add", ".")
	git(t, w.seed, "commit", "--quiet", "-m", "base")
	git(t, w.seed, "push", "--quiet", "origin", "main")
	git(t, w.seed, "checkout", "--quiet", "-b", "feature")
	write(t, w.seed, "spec.md", "the spec\n")
	git(t, w.seed, "add", ".")
	git(t, w.seed, "commit", "--quiet", "-m", "add the spec")
	git(t, w.seed, "push", "--quiet", "origin", "feature")
	w.refreshPR()
	return w
}

// refreshPR points refs/pull/7/head at feature and makes refs/pull/7/merge
// a merge of it into main, as GitHub does after each push.
func (w *world) refreshPR() {
	t := w.t
	git(t, w.seed, "fetch", "--quiet", "origin")
	head := git(t, w.seed, "rev-parse", "origin/feature")
	git(t, w.seed, "checkout", "--quiet", "--detach", "origin/main")
	git(t, w.seed, "merge", "--quiet", "--no-ff", "-m", "Merge "+head+" into main", head)
	w.merge = git(t, w.seed, "rev-parse", "HEAD")
	git(t, w.seed, "push", "--quiet", "-f", "origin", head+":refs/pull/7/head", w.merge+":refs/pull/7/merge")
	git(t, w.seed, "checkout", "--quiet", "-B", "feature", "origin/feature")
}

// checkout makes a fresh work tree the way actions/checkout does: depth 1,
// detached on sha, the token in an extraheader.
func (w *world) checkout(sha, ref string) string {
	t := w.t
	dir := t.TempDir()
	git(t, dir, "init", "--quiet")
	git(t, dir, "remote", "add", "origin", w.origin)
	git(t, dir, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic ***")
	git(t, dir, "-c", "protocol.version=2", "fetch", "--quiet", "--no-tags", "--prune", "--no-recurse-submodules", "--depth=1", "origin", "+"+sha+":"+ref)
	git(t, dir, "checkout", "--quiet", "--force", ref)
	return dir
}

// prJob is a fresh checkout of the pull request's merge ref.
func (w *world) prJob() string { return w.checkout(w.merge, "refs/remotes/pull/7/merge") }

// humanPush commits content to rel on branch as another person.
func (w *world) humanPush(branch, rel, content string) string {
	t := w.t
	git(t, w.seed, "fetch", "--quiet", "origin")
	git(t, w.seed, "checkout", "--quiet", "-B", branch, "origin/"+branch)
	write(t, w.seed, rel, content)
	git(t, w.seed, "add", ".")
	git(t, w.seed, "commit", "--quiet", "-m", "human change to "+rel)
	git(t, w.seed, "push", "--quiet", "origin", branch)
	return git(t, w.seed, "rev-parse", "HEAD")
}

// remote returns origin's commit for ref ("" when missing).
func (w *world) remote(ref string) string {
	out, err := exec.Command("git", "-C", w.bare, "rev-parse", "--verify", "--quiet", ref).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// prTarget is the target of pull request #7.
var prTarget = Target{Branch: "feature", PR: 7, DefaultBranch: "main"}

// session prepares dir for target and returns a pr-mode session.
func (w *world) session(dir string, target Target) *Session {
	t := w.t
	ctx := context.Background()
	g := Git{Dir: dir}
	if _, err := Prepare(ctx, g, target); err != nil {
		t.Fatal(err)
	}
	return &Session{Git: g, StateDir: filepath.Join(dir, ".ralph"), Target: target, Push: true, Reports: filepath.Join(dir, ".ralph", "reports")}
}
