package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The runner of act_e2e_test.go: act, its flags and environment, the
// stand-ins of the remote actions, and the event payloads.

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
	w         *e2e.CIWorld
	github    *actGitHub
	home      string // act's HOME, config and caches
	artifacts string // what the stand-ins upload ($ACT_ARTIFACTS)
	events    string // the event payloads given to act
	mappings  []string
	// asUser, when set, makes act run as another user (its credential and
	// environment).
	asUser func(*exec.Cmd)
}

func newActRunner(t *testing.T, act string, w *e2e.CIWorld) *actRunner {
	t.Helper()
	r := &actRunner{t: t, act: act, w: w, home: t.TempDir(), artifacts: t.TempDir(), events: t.TempDir()}
	r.github = newActGitHub(t, w, ralphRelease(t, w.Bin))
	standIns, err := filepath.Abs(e2e.Root(t, "cmd", "ralph-ci", "testdata", "act"))
	if err != nil {
		t.Fatal(err)
	}
	action := actionCopy(t)
	examples, err := filepath.Glob(e2e.Root(t, "examples", "workflows", "*.yml"))
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
	e2e.WriteFile(t, eventFile, string(b))
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
	if r.asUser != nil {
		r.asUser(cmd)
	}
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
	bin, err := filepath.Abs(e2e.Root(r.t, "cmd", "ralph-ci", "testdata", "act", "bin"))
	if err != nil {
		r.t.Fatal(err)
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+r.home,
		"XDG_CONFIG_HOME="+filepath.Join(r.home, ".config"), "XDG_CACHE_HOME="+filepath.Join(r.home, ".cache"),
		"ACT_DISABLE_VERSION_CHECK=1", "ACT_ARTIFACTS="+r.artifacts, "PROMPTS="+r.w.Prompts,
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
		if err := json.Unmarshal([]byte(readFile(t, e2e.Root(t, "github", "prchannel", "testdata", "events", name))), &m); err != nil {
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
		e2e.WriteFile(t, filepath.Join(dir, f), readFile(t, e2e.Root(t, f)))
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
