package delivery

import (
	"encoding/base64"
	"maps"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

func TestCIWorkflowsDispatchedOnThePushedBranch(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "delivery: {ci_workflows: [ci.yml, lint.yml]}\n"
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	w.Srv.Workflows = []string{"ci.yml", "lint.yml"}
	w.Job("", "")
	_, stderr := w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	got := w.Srv.Dispatched()
	if len(got) != 2 || got[0].Workflow != "ci.yml" || got[1].Workflow != "lint.yml" || got[0].Ref != "changes" || got[1].Ref != "changes" {
		t.Fatalf("workflow_dispatch requests %+v, want ci.yml and lint.yml on the pushed branch changes", got)
	}
	e2e.Contains(t, "the run's log", stderr, "delivery: started the workflow on the pushed branch (workflow_dispatch)")
	summary, _ := os.ReadFile(w.Summary)
	e2e.Contains(t, "the job summary", string(summary), "ralph-ci started CI on `changes`", "`ci.yml`, `lint.yml`")
}

// gitServer serves the bare repository dir over HTTP with git's
// http-backend, requiring one of tokens (basic auth, x-access-token);
// pushedWith records the token of each push (git-receive-pack).
type gitServer struct {
	URL        string
	mu         sync.Mutex
	pushedWith []string
}

func serveGit(t *testing.T, bare string, tokens ...string) *gitServer {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", bare, "config", "http.receivepack", "true").Run(); err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(bare), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}}
	g := &gitServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		known := false
		for _, tok := range tokens {
			known = known || pass == tok
		}
		if !ok || user != "x-access-token" || !known {
			w.Header().Set("WWW-Authenticate", `Basic realm="origin"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
			g.mu.Lock()
			g.pushedWith = append(g.pushedWith, pass)
			g.mu.Unlock()
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

func TestPushTokenPushesAndItsRunDoesNotLoopAgain(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles)
	origin := serveGit(t, w.Bare, "test-token", "app-token")
	w.Srv.MessageFrom = func(sha string) (string, bool) {
		out, err := exec.Command("git", "-C", w.Bare, "log", "-1", "--format=%B", sha).Output()
		return string(out), err == nil
	}
	// The job: its checkout's origin is the HTTP one; the push token comes
	// on descriptor 4, as the Action hands it.
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		// As actions/checkout leaves it: the job's token persisted for the server.
		for _, args := range [][]string{{"remote", "set-url", "origin", origin.URL + "/" + filepath.Base(w.Bare)},
			{"config", "--local", "http." + origin.URL + "/.extraheader", "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:test-token"))}} {
			if out, err := exec.Command("git", append([]string{"-C", w.Dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
		}
		return w.RalphPushToken(want, "app-token", []string{"GITHUB_SERVER_URL=" + origin.URL}, args...)
	}
	w.Job("", "")
	run(3, "run", "--deliver", "pr", "--max-rotations", "2")
	origin.mu.Lock()
	pushed := append([]string(nil), origin.pushedWith...)
	origin.mu.Unlock()
	if len(pushed) == 0 {
		t.Fatal("nothing was pushed over HTTP")
	}
	for _, tok := range pushed {
		if tok != "app-token" {
			t.Fatalf("pushes made with %q, want the push token only", pushed)
		}
	}

	// That push starts the run workflow again (synchronize): its head is
	// ralph-ci's, so it starts no second loop.
	head := w.Rev("refs/heads/changes")
	w.SetEventJSON(`{"action":"synchronize","number":2,"pull_request":{"number":2,"head":{"sha":"` + head + `","ref":"changes"}},"repository":{"full_name":"Codertocat/Hello-World"}}`)
	before := len(w.Iterations())
	w.Job("", "")
	stdout, _ := run(0, "run", "--deliver", "pr")
	e2e.Contains(t, "the run started by ralph-ci's push", stdout, "started by ralph-ci's own push", "no second loop")
	if n := len(w.Iterations()); n != before {
		t.Fatalf("the run started by ralph-ci's push ran %d rotations", n-before)
	}
	if w.Rev("refs/heads/changes") != head {
		t.Fatal("the run started by ralph-ci's push pushed")
	}
}
