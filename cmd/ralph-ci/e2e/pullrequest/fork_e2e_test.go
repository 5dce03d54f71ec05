package pullrequest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// A fork's pull request: check on pull_request_target (the checkout is
// the base, with no specs; nothing of the fork's is checked out or run)
// judges the event's pull request alone through the API, and sets the
// one status on its head.
func TestCheckOnPullRequestTargetJudgesAForksPullRequest(t *testing.T) {
	w := newSweepWorld(t, e2e.RalphBinary(t), sweepConfig, "schedule", 1, 2)
	w.eventName = "pull_request_target"
	payload := fmt.Sprintf(`{"action":"synchronize","number":1,"pull_request":{"number":1,"head":{"sha":%q,"ref":"feature","repo":{"full_name":"someone/Hello-World"}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World"}}`, w.heads[1])
	if err := os.WriteFile(w.event, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := w.check(6)
	e2e.Contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=pending")
	if w.srv.Seen("GET", "/issues/2/comments") != 0 {
		t.Fatal("check on pull_request_target read another pull request")
	}
	w.srv.React(w.comments[1], e2e.Alice, "+1")
	stdout, _ = w.check(0)
	e2e.Contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=passed")
	if st := w.gate(1); st.State != "success" {
		t.Fatalf("ralph-ci on the fork's head: %s %q, want success", st.State, st.Description)
	}
}

// run on a fork's pull request does nothing unless a person with write
// access asks; asked, it works on ralph-ci/pr-N of the base repository
// and opens a pull request from it.
func TestRunOnAForkOnlyWhenAMaintainerAsks(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles)
	w.Srv.HeadRepo = "someone/Hello-World"
	w.Srv.Perms["mallory"] = "read"
	comment := func(login string) {
		w.SetEventJSON(fmt.Sprintf(`{"action":"created","issue":{"number":2,"pull_request":{"url":"x"}},"comment":{"id":1,"body":"/ralph-ci run please","user":{"login":%q}},"repository":{"full_name":"Codertocat/Hello-World"},"sender":{"login":%q}}`, login, login))
	}
	w.ExtraEnv = append(w.ExtraEnv, "GITHUB_EVENT_NAME=issue_comment")
	// The fork's code gets none of the job's environment but the basics:
	// its config hands the agent where to note its rotations.
	w.Push("changes", map[string]string{"ralph.yaml": e2e.WithRecords(strings.Replace(e2e.CIRepoFiles["ralph.yaml"], "timeout: 1m}", "timeout: 1m, env: {PROMPTS: "+w.Prompts+"}}", 1))}, "the fork's config")

	// The fork's synchronize: nothing runs.
	w.SetEventJSON(`{"action":"synchronize","number":2,"pull_request":{"number":2,"head":{"sha":"x","ref":"changes","repo":{"full_name":"someone/Hello-World"}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World"}}`)
	w.Job("", "")
	stdout, _ := w.RalphEnv(0, []string{"GITHUB_EVENT_NAME=pull_request_target"}, "run", "--deliver", "pr")
	e2e.Contains(t, "run on a fork's push", stdout, "comes from a fork (someone/Hello-World): run works on it only when a person with write access asks")
	if len(w.Iterations()) != 0 {
		t.Fatal("an agent ran on a fork's pull request nobody asked for")
	}

	// Someone who may not write asks: still nothing.
	comment("mallory")
	w.Job("", "")
	stdout, _ = w.Ralph(0, "run", "--deliver", "pr")
	e2e.Contains(t, "run asked by mallory", stdout, "@mallory asked to run on pull request #2 from a fork, but may not write")
	if len(w.Iterations()) != 0 {
		t.Fatal("an agent ran at the request of someone who may not write")
	}

	// A maintainer asks: the loop runs on ralph-ci/pr-2 and a pull request is opened from it.
	comment("alice")
	w.Job("", "")
	w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	if len(w.Iterations()) != 2 {
		t.Fatalf("%d rotations, want 2", len(w.Iterations()))
	}
	if w.Rev("refs/heads/ralph-ci/pr-2") == "" {
		t.Fatal("nothing was delivered to ralph-ci/pr-2 of the base repository")
	}
	opened := w.Srv.OpenedPulls()
	if len(opened) != 1 || opened[0].Head != "ralph-ci/pr-2" || opened[0].Base != "master" {
		t.Fatalf("pull requests opened: %+v, want one from ralph-ci/pr-2 into master", opened)
	}
}

// A fork whose owner allows maintainers: with a push-token, run asked by
// a maintainer pushes the loop's work to the fork's own branch (the pull
// request's head) with the push-token alone, the fork's HTTP origin
// records, and keeps the state in the base repository; no branch of the
// base repository and no second pull request. When the fork refuses the
// push (its owner pushed meanwhile), the work goes to ralph-ci/pr-N of
// the base repository with a pull request, and the log says why; when
// the fork does not allow maintainers, the log says so.
func TestRunPushesToAForkThatAllowsMaintainers(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles)
	fork := ghorigin.New(t, "master", "changes", 2, map[string]string{"README.md": "fork\n"}, nil)
	// The fork's branch is the pull request's head, which GitHub mirrors
	// into the base repository's refs/pull/2/head (here: the base's
	// changes branch, which each job's refresh of the pull request reads).
	ghorigin.Git(t, fork.Bare, "fetch", "--quiet", w.Bare, "+refs/heads/changes:refs/heads/changes")
	fork.ServeHTTP("app-token")
	mirror := func() {
		ghorigin.Git(t, w.Bare, "fetch", "--quiet", fork.Bare, "+refs/heads/changes:refs/heads/changes")
	}
	w.Srv.HeadRepo, w.Srv.HeadCloneURL, w.Srv.MaintainerCanModify = "someone/Hello-World", fork.URL, true
	env := []string{"GITHUB_SERVER_URL=" + fork.ServerURL, "GITHUB_EVENT_NAME=pull_request_target"}
	labeled := func(maintainers bool) {
		w.SetEventJSON(fmt.Sprintf(`{"action":"labeled","number":2,"label":{"name":"ralph-ci run"},"sender":{"login":"alice"},"pull_request":{"number":2,"maintainer_can_modify":%t,"head":{"sha":%q,"ref":"changes","repo":{"full_name":"someone/Hello-World","clone_url":%q}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World","default_branch":"master"}}`,
			maintainers, fork.Rev("refs/heads/changes"), fork.URL))
	}

	// Run 1: the work goes to the fork's branch, pushed with the push-token.
	start := fork.Rev("refs/heads/changes")
	labeled(true)
	w.Job("", "")
	_, stderr := w.RalphPushToken(3, "app-token", env, "run", "--deliver", "pr", "--max-rotations", "1")
	e2e.Contains(t, "run 1's log", stderr, "the fork allows maintainers: the work goes to its branch, pushed with the push-token")
	tip := fork.Rev("refs/heads/changes")
	if tip == start || fork.Rev(tip+"^1") != start {
		t.Fatalf("the fork's branch is at %s, want one commit of the loop's on %s\n%s", tip, start, stderr)
	}
	pushes := fork.Pushes()
	if len(pushes) == 0 || fork.Refused != 0 {
		t.Fatalf("pushes to the fork %q, %d requests refused: want pushes with the push-token only", pushes, fork.Refused)
	}
	for _, tok := range pushes {
		if tok != "app-token" {
			t.Fatalf("the fork was pushed to with %q, want the push-token only", pushes)
		}
	}
	if w.Rev("refs/heads/ralph-ci/pr-2") != "" || len(w.Srv.OpenedPulls()) != 0 {
		t.Fatal("the work also went to a branch of the base repository, or a pull request was opened")
	}
	if w.Rev("refs/ralph-ci/state/ralph-ci/pr-2") == "" {
		t.Fatal("the loop's state is not in the base repository")
	}

	// Run 2: the fork's owner pushed meanwhile (not mirrored yet): the
	// fork refuses ralph-ci's push, the work goes to ralph-ci/pr-2.
	mirror()
	labeled(true)
	ownerTip := fork.Push("changes", map[string]string{"owner.txt": "mine\n"}, "the fork owner's change")
	w.Job("", "")
	_, stderr = w.RalphPushToken(3, "app-token", env, "run", "--deliver", "pr", "--max-rotations", "1")
	e2e.Contains(t, "run 2's log", stderr, "the fork refused the push to its branch changes", "the work goes to ralph-ci/pr-2 of the base repository instead")
	if fork.Rev("refs/heads/changes") != ownerTip {
		t.Fatal("the fork's branch moved past its owner's push")
	}
	own := w.Rev("refs/heads/ralph-ci/pr-2")
	if own == "" || w.Rev(own+"^1") != tip {
		t.Fatalf("ralph-ci/pr-2 is %q, want the loop's commit on %s\n%s\n%s", own, tip, ghorigin.Git(t, w.Bare, "log", "--format=%H %s", "-5", own), stderr)
	}
	if opened := w.Srv.OpenedPulls(); len(opened) != 1 || opened[0].Head != "ralph-ci/pr-2" {
		t.Fatalf("pull requests opened: %+v, want one from ralph-ci/pr-2", opened)
	}

	// Run 3: the fork no longer allows maintainers: the log says so.
	labeled(false)
	w.Job("", "")
	_, stderr = w.RalphPushToken(3, "app-token", env, "run", "--deliver", "pr", "--max-rotations", "1")
	e2e.Contains(t, "run 3's log", stderr, "does not allow maintainers to push to its branch: the work goes to ralph-ci/pr-2 of the base repository")
}

// On a fork's run that pushes to the fork, the push-token goes to the
// fork's push alone: every request to the base repository (its fetches,
// the state's push), served over HTTP as GitHub does, carries the job's
// token, and every request to the fork the push-token.
func TestForkPushTokenGoesToTheForkPushAlone(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles, e2e.HTTPOrigin)
	fork := ghorigin.New(t, "master", "changes", 2, map[string]string{"README.md": "fork\n"}, nil)
	ghorigin.Git(t, fork.Bare, "fetch", "--quiet", w.Bare, "+refs/heads/changes:refs/heads/changes")
	fork.ServeHTTP("app-token")
	w.Srv.HeadRepo, w.Srv.HeadCloneURL, w.Srv.MaintainerCanModify = "someone/Hello-World", fork.URL, true
	env := []string{"GITHUB_SERVER_URL=" + fork.ServerURL, "GITHUB_EVENT_NAME=pull_request_target"}
	w.SetEventJSON(fmt.Sprintf(`{"action":"labeled","number":2,"label":{"name":"ralph-ci run"},"sender":{"login":"alice"},"pull_request":{"number":2,"maintainer_can_modify":true,"head":{"sha":%q,"ref":"changes","repo":{"full_name":"someone/Hello-World","clone_url":%q}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World","default_branch":"master"}}`,
		fork.Rev("refs/heads/changes"), fork.URL))
	w.Job("", "")
	start := len(w.Sent())
	_, stderr := w.RalphPushToken(3, "app-token", env, "run", "--deliver", "pr", "--max-rotations", "1")
	e2e.Contains(t, "the log", stderr, "the fork allows maintainers: the work goes to its branch, pushed with the push-token")
	base := w.Sent()[start:]
	if len(base) == 0 || w.Refused != 0 {
		t.Fatalf("requests to the base repository: %q, %d refused", base, w.Refused)
	}
	for _, tok := range base {
		if tok != "test-token" {
			t.Fatalf("the base repository got %q, want the job's token on every request", base)
		}
	}
	if len(w.Pushes()) == 0 || w.Rev("refs/ralph-ci/state/ralph-ci/pr-2") == "" {
		t.Fatal("the state was not pushed to the base repository")
	}
	sent := fork.Sent()
	if len(fork.Pushes()) == 0 || fork.Refused != 0 {
		t.Fatalf("pushes to the fork %q, %d refused", fork.Pushes(), fork.Refused)
	}
	for _, tok := range sent {
		if tok != "app-token" {
			t.Fatalf("the fork got %q, want the push-token on every request", sent)
		}
	}
}

// A run on a fork's pull request, asked by a maintainer, gives the fork's
// agent and verification command the basics only: the job's other
// secrets (NPM_TOKEN, AWS_SECRET_ACCESS_KEY) never reach them, and on no
// run does the agent's key (the proxy holds it: the agent gets a
// placeholder). Yet the agent reaches its model through the proxy,
// fork or not, at the base URL the job's environment names: the model
// server gets the job's key. The same run on the repository's own pull
// request keeps the job's other variables, as before.
func TestForkRunGetsNoSecretAndReachesItsModel(t *testing.T) {
	bin := e2e.RalphBinary(t)
	for _, fork := range []bool{true, false} {
		t.Run(fmt.Sprintf("fork=%t", fork), func(t *testing.T) {
			dump := e2e.AgentDir(t) // the agent and the verification write there (as root, as its own user; RecordsGrant)
			var modelKeys []string
			var mu sync.Mutex
			model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				modelKeys = append(modelKeys, r.Header.Get("x-api-key"))
				mu.Unlock()
				io.WriteString(w, "model reached")
			}))
			defer model.Close()
			files := map[string]string{
				"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], format: claude, timeout: 1m}\n" +
					"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
				"agent.sh": "cat > /dev/null\nenv > " + dump + "/agent.env\necho finished > work.txt\n" +
					"curl -s -X POST -H \"x-api-key: $ANTHROPIC_API_KEY\" \"$ANTHROPIC_BASE_URL/v1/messages\" > " + dump + "/model.txt\n" +
					`printf '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done\\n- [x] work.txt says finished\\n<promise>CHECKED</promise>\\nRALPH_STATUS: DONE","total_cost_usd":0.01}\n'` + "\n",
				"specs/a.spec.md": "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
					"  coder:\n    promise: CHECKED\n    description: finished\n    verification_method: external\n" +
					"    verification_config: {command: env > " + dump + "/verify.env, timeout: 30}\n---\n# A\n",
				".gitignore": ".ralph/\n",
			}
			w := e2e.NewCIWorld(t, bin, files)
			w.ExtraEnv = append(w.ExtraEnv, "NPM_TOKEN=npm-secret-1234", "AWS_SECRET_ACCESS_KEY=aws-secret-5678", "ANTHROPIC_API_KEY=sk-ant-key-9999", "ANTHROPIC_BASE_URL="+model.URL)
			if fork {
				w.Srv.HeadRepo = "someone/Hello-World"
				w.SetEventJSON(`{"action":"created","issue":{"number":2,"pull_request":{"url":"x"}},"comment":{"id":1,"body":"/ralph-ci run","user":{"login":"alice"}},"repository":{"full_name":"Codertocat/Hello-World"},"sender":{"login":"alice"}}`)
				w.ExtraEnv = append(w.ExtraEnv, "GITHUB_EVENT_NAME=issue_comment")
			}
			w.Job("", "")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd, o, e := w.Command(ctx, "run", "--deliver", "pr", "--max-rotations", "1")
			_ = cmd.Run()
			for _, name := range []string{"agent.env", "verify.env"} {
				b, err := os.ReadFile(filepath.Join(dump, name))
				if err != nil {
					t.Fatalf("%s: %v (did the agent and the verification run?)\nstdout:\n%s\nstderr:\n%s", name, err, o, e)
				}
				env := string(b)
				for _, secret := range []string{"NPM_TOKEN=npm-secret-1234", "AWS_SECRET_ACCESS_KEY=aws-secret-5678"} {
					if got := strings.Contains(env, secret); got == fork {
						t.Errorf("%s: %s present %v on fork=%t\n%s", name, secret, got, fork, env)
					}
				}
				for _, kept := range []string{"PATH=", "HOME=", "RALPH_"} {
					if !strings.Contains(env, kept) {
						t.Errorf("%s: %s missing on fork=%t\n%s", name, kept, fork, env)
					}
				}
				if strings.Contains(env, "sk-ant-key-9999") || strings.Contains(env, model.URL) {
					t.Errorf("%s: the agent's key or its model's address reached a process on fork=%t\n%s", name, fork, env)
				}
			}
			if b, err := os.ReadFile(filepath.Join(dump, "model.txt")); err != nil || string(b) != "model reached" {
				t.Errorf("the agent did not reach its model on fork=%t: %q %v", fork, b, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(modelKeys) != 1 || modelKeys[0] != "sk-ant-key-9999" {
				t.Errorf("the model server got the keys %q, want the job's once", modelKeys)
			}
		})
	}
}

// A fork's pull request nobody has run the loop on: check on
// pull_request_target finds no checkpoint on its head, and still sets the
// one status there, pending, saying why and how a maintainer starts a
// run, so that the merge is blocked by a status that explains itself.
func TestCheckOnPullRequestTargetGatesAnUnrunForksPullRequest(t *testing.T) {
	w := newSweepWorld(t, e2e.RalphBinary(t), sweepConfig, "schedule", 1)
	w.eventName = "pull_request_target"
	w.heads[3] = fmt.Sprintf("%040x", 0xabc003)
	w.srv.AddPull(3, w.heads[3], e2e.PRAuthor.Login)
	payload := fmt.Sprintf(`{"action":"opened","number":3,"pull_request":{"number":3,"head":{"sha":%q,"ref":"feature","repo":{"full_name":"someone/Hello-World"}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World"}}`, w.heads[3])
	if err := os.WriteFile(w.event, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	w.check(0)
	st := w.gate(3)
	if st.State != "pending" || !strings.Contains(st.Description, "no run of the loop verified every spec") || !strings.Contains(st.Description, `"/ralph-ci run"`) {
		t.Fatalf("ralph-ci on the unrun fork's head: %s %q, want pending, saying why and how to run it", st.State, st.Description)
	}
}
