// Package ghorigin is a test helper: a bare "origin" repository holding a
// pull request as GitHub does (its head branch, refs/pull/N/head and
// refs/pull/N/merge), served over file:// or, like a private repository,
// over HTTP requiring the token (ServeHTTP), fresh checkouts made the way
// actions/checkout makes them (depth 1, detached, the token in an
// extraheader), and pushes by "another person". Tests of CI delivery run
// real git against it. It runs git itself, as a person and GitHub would,
// never on ralph-ci's behalf (internal/layering lists it).
package ghorigin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Origin is the bare repository and a full clone playing another person.
type Origin struct {
	t *testing.T
	// Bare is the bare repository's path, URL its file:// URL (shallow
	// fetches need a URL).
	Bare, URL string
	// Seed is a full clone pushing as "Human <human@example.com>".
	Seed string
	// Base and Head are the pull request's base and head branches, PR
	// its number; Merge is the commit of refs/pull/PR/merge.
	Base, Head string
	PR         int
	Merge      string
	httpState
}

// New makes origin with branch base holding baseFiles (one commit) and
// branch head holding headFiles on top (one commit), then the pull
// request's refs. Git runs without the user's or system's config.
func New(t *testing.T, base, head string, pr int, baseFiles, headFiles map[string]string) *Origin {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	o := &Origin{t: t, Bare: filepath.Join(root, "origin.git"), Seed: filepath.Join(root, "seed"), Base: base, Head: head, PR: pr}
	o.URL = "file://" + o.Bare
	Git(t, root, "init", "--quiet", "--bare", "--initial-branch="+base, o.Bare)
	Git(t, o.Bare, "config", "uploadpack.allowAnySHA1InWant", "true") // fetch by sha, as GitHub allows
	Git(t, root, "clone", "--quiet", o.URL, o.Seed)
	Git(t, o.Seed, "checkout", "--quiet", "-b", base)
	o.commit(baseFiles, "base")
	Git(t, o.Seed, "push", "--quiet", "origin", base)
	Git(t, o.Seed, "checkout", "--quiet", "-b", head)
	o.commit(headFiles, "the pull request's change")
	Git(t, o.Seed, "push", "--quiet", "origin", head)
	o.RefreshPR()
	return o
}

func (o *Origin) commit(files map[string]string, msg string) {
	WriteFiles(o.t, o.Seed, files)
	Git(o.t, o.Seed, "add", "--all")
	Git(o.t, o.Seed, "commit", "--quiet", "--allow-empty", "-m", msg)
}

// RefreshPR points refs/pull/PR/head at the head branch and remakes
// refs/pull/PR/merge as a merge of it into base, as GitHub does after a
// push.
func (o *Origin) RefreshPR() {
	t, n := o.t, strconv.Itoa(o.PR)
	Git(t, o.Seed, "fetch", "--quiet", "origin")
	head := Git(t, o.Seed, "rev-parse", "origin/"+o.Head)
	Git(t, o.Seed, "checkout", "--quiet", "--detach", "origin/"+o.Base)
	Git(t, o.Seed, "merge", "--quiet", "--no-ff", "-m", "Merge "+head+" into "+o.Base, head)
	o.Merge = Git(t, o.Seed, "rev-parse", "HEAD")
	Git(t, o.Seed, "push", "--quiet", "--force", "origin", head+":refs/pull/"+n+"/head", o.Merge+":refs/pull/"+n+"/merge")
}

// Checkout makes a fresh work tree as actions/checkout does: depth 1,
// detached on sha fetched into ref, the token in an extraheader (a fake
// one for github.com; after ServeHTTP the origin's token, unless
// NoPersist).
func (o *Origin) Checkout(sha, ref string) string {
	t := o.t
	dir := t.TempDir()
	Git(t, dir, "init", "--quiet")
	Git(t, dir, "remote", "add", "origin", o.URL)
	var auth []string
	switch {
	case o.Token == "":
		Git(t, dir, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic ***")
	case o.NoPersist:
		auth = []string{"-c", "http." + o.ServerURL + "/.extraheader=" + o.Header()}
	default:
		Git(t, dir, "config", "--local", "http."+o.ServerURL+"/.extraheader", o.Header())
	}
	Git(t, dir, append(auth, "-c", "protocol.version=2", "fetch", "--quiet", "--no-tags", "--prune", "--no-recurse-submodules", "--depth=1", "origin", "+"+sha+":"+ref)...)
	Git(t, dir, "checkout", "--quiet", "--force", ref)
	return dir
}

// PRJob is a fresh checkout of the pull request's merge ref, after
// refreshing it, as a job on a pull_request event gets.
func (o *Origin) PRJob() string {
	o.RefreshPR()
	return o.Checkout(o.Merge, "refs/remotes/pull/"+strconv.Itoa(o.PR)+"/merge")
}

// Push commits files to branch as another person and pushes; it returns
// the new commit.
func (o *Origin) Push(branch string, files map[string]string, msg string) string {
	Git(o.t, o.Seed, "fetch", "--quiet", "origin")
	Git(o.t, o.Seed, "checkout", "--quiet", "-B", branch, "origin/"+branch)
	o.commit(files, msg)
	Git(o.t, o.Seed, "push", "--quiet", "origin", branch)
	return Git(o.t, o.Seed, "rev-parse", "HEAD")
}

// Rev is origin's commit for rev, "" when there is none.
func (o *Origin) Rev(rev string) string {
	out, err := exec.Command("git", "-C", o.Bare, "rev-parse", "--verify", "--quiet", rev).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Git runs git in dir as "Human" and returns its trimmed output; a
// failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), PersonEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// PersonEnv is the git identity of the other person.
var PersonEnv = []string{"GIT_AUTHOR_NAME=Human", "GIT_AUTHOR_EMAIL=human@example.com", "GIT_COMMITTER_NAME=Human", "GIT_COMMITTER_EMAIL=human@example.com"}

// WriteFiles writes files (slash-separated paths) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
