//go:build linux

package claude

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/modelproxy"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// The real Claude Code CLI, with the key and base URL in the job's
// environment (as the Action's step env gives them), reaches the
// scripted Messages API only through ralph-ci's proxy: the server gets
// the job's key on every request, while the CLI's own environment
// (dumped by the process that then execs the CLI) holds a placeholder
// and the proxy's URL, never the key nor the server's address. The loop
// is verified as with the key in the agent's hands.
func TestClaudeCodeReachesItsModelThroughTheProxy(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	requireNetworkBox(t)
	bin := e2e.RalphBinary(t)
	home, configDir := claudeHome(t)
	const content, key = "hello from claude\n", "sk-ant-job-key-7f3a9c2e51d04b88"
	repoDir := filepath.Join(t.TempDir(), "repo")
	hello := filepath.Join(repoDir, "hello.txt")
	srv := newMessagesServer(t, hello, content, "IMPLEMENTATION_COMPLETE")
	dump := e2e.RecordDir(t) // the agent writes there (RecordsGrant)
	config := fmt.Sprintf(`agents:
  coder:
    command: [sh, -c, 'env > "$0/claude.env.$$"; exec claude -p --output-format stream-json --verbose --permission-mode acceptEdits', %q]
    format: claude
    timeout: 1m
    env:
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"
      DISABLE_AUTOUPDATER: "1"
      CLAUDE_CONFIG_DIR: %q
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
%s`, dump, configDir, e2e.RecordsGrant)
	dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
		"ralph.yaml": config, ".gitignore": ".ralph/\n",
		"PROMPT.md": "# Hello\n\nCreate hello.txt at the repository root containing exactly \"hello from claude\".\n",
	})
	env := append(e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_"), "ANTHROPIC_API_KEY="+key, "ANTHROPIC_BASE_URL="+srv.URL())
	code, stdout, stderr := e2e.RunRalph(t, bin, dir, env, 90*time.Second)
	e2e.CheckRoutes(t, &srv.RequestLog, "claude_server_test.go")
	e2e.CheckVerifiedLoop(t, e2e.LoopRun{
		Code: code, Stdout: stdout, Stderr: stderr, Dir: dir,
		File: hello, Content: content, Agent: "Claude Code", WantCost: true,
		History: []string{`"type":"result"`, `<promise>IMPLEMENTATION_COMPLETE</promise>`},
	})
	srv.mu.Lock()
	keys := append([]string(nil), srv.apiKeys...)
	srv.mu.Unlock()
	withKey := 0
	for _, k := range keys {
		switch k {
		case key:
			withKey++
		case "":
		default:
			t.Errorf("the server got the key %q, want the job's", k)
		}
	}
	if withKey == 0 {
		t.Errorf("no request reached the server with the job's key: %q", keys)
	}
	dumps, _ := filepath.Glob(filepath.Join(dump, "claude.env.*"))
	if len(dumps) != 3 {
		t.Fatalf("%d environment dumps, want one per rotation (3)", len(dumps))
	}
	for _, f := range dumps {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e := string(b)
		if strings.Contains(e, key) || strings.Contains(e, srv.URL()) {
			t.Errorf("the CLI's environment holds the key or the server's address:\n%s", e)
		}
		for _, want := range []string{"ANTHROPIC_API_KEY=" + modelproxy.Placeholder("ANTHROPIC_API_KEY"), "ANTHROPIC_BASE_URL=http://127.0.0.1:", "HTTPS_PROXY=http://127.0.0.1:"} {
			if !strings.Contains(e, want) {
				t.Errorf("the CLI's environment lacks %s:\n%s", want, e)
			}
		}
	}
}

// A boxed process (here the agent; verification commands start the same
// way) reaches nothing but the proxy: a direct connection to a listener
// on the machine's 127.0.0.1 fails and the listener never sees it; a
// request for a host network.allow does not list is refused by the
// proxy, and the log names the host; a host it lists is reached. A text
// agent gets no key at all.
func TestBoxedProcessesReachOnlyTheProxy(t *testing.T) {
	requireNetworkBox(t)
	bin := e2e.RalphBinary(t)
	n := newNetTargets(t)
	dump := e2e.RecordDir(t) // the agent writes there (RecordsGrant)
	agent := "cat > /dev/null\n" + n.probe(dump) + "env > " + dump + `/agent.env
echo '<promise>IMPLEMENTATION_COMPLETE</promise>'
echo 'RALPH_STATUS: DONE'
`
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], format: text, timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
			"network: {allow: [\"" + n.allowedHost + "\"]}\n" + e2e.RecordsGrant,
		"agent.sh": agent, "PROMPT.md": "# Net\n\nTry the network.\n", ".gitignore": ".ralph/\n",
	})
	const key = "sk-ant-job-key-0c1d2e3f4a5b6c7d"
	env := append(e2e.AgentEnv(t.TempDir()), "ANTHROPIC_API_KEY="+key)
	_, stdout, stderr := e2e.RunRalphArgs(t, bin, dir, env, 60*time.Second, "--log-format", "json", "run", "--max-rotations", "1")
	got, err := os.ReadFile(filepath.Join(dump, "net.txt"))
	if err != nil {
		t.Fatalf("the agent left no net.txt: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	n.check(t, got, string(stderr))
	e2e.Contains(t, "the log", string(stderr), `"host":"`+n.named+`"`, "network: refused a connection to a host network.allow does not list")
	b, err := os.ReadFile(filepath.Join(dump, "agent.env"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), key) || strings.Contains(string(b), "ANTHROPIC_API_KEY") {
		t.Errorf("a text agent got a key:\n%s", b)
	}
}

// requireNetworkBox skips the test where the kernel gives no network box
// (not root), except in CI, which runs as root: there it fails.
func requireNetworkBox(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the network box needs root; CI runs as root")
	}
	t.Skip("the network box needs root")
}

// Without root there is no network box: ralph-ci, run as a user of its
// own (with a cgroup delegated to it, as box's test does), leaves the
// boxed processes Landlock's TCP connect to the proxy's port alone. The
// agent's direct connection to a listener on 127.0.0.1 fails and the
// listener never sees it; through the proxy it reaches a host
// network.allow lists, and a host it does not list is refused and named
// in the log.
func TestNonRootRunReachesOnlyTheProxyByLandlock(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creates a user: needs root")
	}
	if abi := shepherd.LandlockABI(); abi < 4 {
		t.Skipf("Landlock ABI %d has no network rules (4, Linux 6.7)", abi)
	}
	n := newNetTargets(t)
	agent := "cat > /dev/null\n" + n.probe(`"$OUT"`) + "echo \"RALPH_STATUS: CONTINUE\"\n"
	r := e2e.NewBoxRun(t, "rcnet", false, agent, "network: {allow: [\""+n.allowedHost+"\"]}\n")
	fd := r.Delegate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := e2e.AsUser(r.U, fd, r.Dir, r.Env, r.Bin, "--log-format", "json", "run", "--max-rotations", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd = withContext(ctx, cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ralph-ci did not end: %v\n%s", err, stderr.String())
	}
	t.Logf("ralph-ci ended: %v", err)
	got, _ := os.ReadFile(filepath.Join(r.Out, "net.txt"))
	n.check(t, got, stderr.String())
	e2e.Contains(t, "the log", stderr.String(), "Landlock lets agents and verification commands connect over TCP to ralph-ci's proxy's port alone", `"host":"`+n.named+`"`)
}

// netTargets are what a boxed agent tries to reach: a listener on the
// machine's 127.0.0.1 (outside the box), a host network.allow does not
// list (named, on that listener's port) and one it lists (allowedHost).
type netTargets struct {
	reached     atomic.Int32 // connections the listener on 127.0.0.1 got
	port, named string
	allowedHost string
}

// newNetTargets starts the targets, stopped when the test ends.
func newNetTargets(t *testing.T) *netTargets {
	t.Helper()
	outside, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outside.Close() })
	n := &netTargets{port: strconv.Itoa(outside.Addr().(*net.TCPAddr).Port)}
	n.named = "ralph-ci-test.invalid:" + n.port
	go func() {
		for {
			c, err := outside.Accept()
			if err != nil {
				return
			}
			n.reached.Add(1)
			c.Close()
		}
	}()
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "allowed-body") }))
	t.Cleanup(allowed.Close)
	n.allowedHost = strings.TrimPrefix(allowed.URL, "http://")
	return n
}

// probe is the agent's shell lines that try each target and write what
// happened to dir/net.txt (dir as the shell reads it).
func (n *netTargets) probe(dir string) string {
	return fmt.Sprintf(`if bash -c 'exec 3<>/dev/tcp/127.0.0.1/%[2]s' 2>/dev/null; then echo direct=reached; else echo direct=failed; fi > %[1]s/net.txt
curl -s -o /dev/null -w 'named=%%{http_code}\n' http://%[3]s/ >> %[1]s/net.txt
curl -s --noproxy '' -w ' allowed=%%{http_code}\n' http://%[4]s/ >> %[1]s/net.txt
`, dir, n.port, n.named, n.allowedHost)
}

// check fails the test unless net.txt (got) says the direct connection
// failed, the host not listed was refused and the listed one reached,
// and the listener on 127.0.0.1 saw nothing.
func (n *netTargets) check(t *testing.T, got []byte, log string) {
	t.Helper()
	if want := "direct=failed\nnamed=403\nallowed-body allowed=200\n"; string(got) != want {
		t.Errorf("the agent's connections: %q, want %q\n%s", got, want, log)
	}
	if c := n.reached.Load(); c != 0 {
		t.Errorf("the listener on the machine's 127.0.0.1 got %d connections from the box", c)
	}
}

// withContext is cmd, killed when ctx is done.
func withContext(ctx context.Context, cmd *exec.Cmd) *exec.Cmd {
	go func() {
		<-ctx.Done()
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	}()
	return cmd
}

// A `command` agent declares where it reads its key and base URL
// (model_api): with both in the job's environment, it gets the proxy's
// URL and a placeholder, and its model server gets the job's key; the
// verification command gets neither the key nor the variable.
func TestCommandAgentDeclaresItsModelAPI(t *testing.T) {
	requireNetworkBox(t)
	bin := e2e.RalphBinary(t)
	var keys []string
	var mu sync.Mutex
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		io.WriteString(w, "model reached")
	}))
	defer model.Close()
	dump := e2e.RecordDir(t) // the agent writes there (RecordsGrant)
	agent := fmt.Sprintf(`cat > /dev/null
env > %[1]s/agent.env
curl -s -H "Authorization: Bearer $MY_API_KEY" "$MY_API_BASE_URL/v1/chat" > %[1]s/model.txt
echo finished > work.txt
echo '- [x] work.txt says finished'
echo '<promise>CHECKED</promise>'
echo 'RALPH_STATUS: DONE'
`, dump)
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder:\n    command: [sh, agent.sh]\n    timeout: 1m\n    model_api: {keys: [MY_API_KEY], base_url: MY_API_BASE_URL}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" + e2e.RecordsGrant,
		"agent.sh": agent, ".gitignore": ".ralph/\n",
		"specs/a.spec.md": "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
			"  coder:\n    promise: CHECKED\n    description: finished\n    verification_method: external\n" +
			"    verification_config: {command: env > " + dump + "/verify.env, timeout: 30}\n---\n# A\n",
	})
	const key = "sk-declared-5e6f7a8b9c0d"
	env := append(e2e.AgentEnv(t.TempDir()), "MY_API_KEY="+key, "MY_API_BASE_URL="+model.URL)
	_, stdout, stderr := e2e.RunRalphArgs(t, bin, dir, env, 60*time.Second, "--log-format", "json", "run", "--max-rotations", "1")
	if b, err := os.ReadFile(filepath.Join(dump, "model.txt")); err != nil || string(b) != "model reached" {
		t.Fatalf("the agent did not reach its model: %q %v\nstdout:\n%s\nstderr:\n%s", b, err, stdout, stderr)
	}
	mu.Lock()
	got := append([]string(nil), keys...)
	mu.Unlock()
	if len(got) != 1 || got[0] != "/v1/chat Bearer "+key {
		t.Errorf("the model server got %q, want the job's key once", got)
	}
	for _, name := range []string{"agent.env", "verify.env"} {
		b, err := os.ReadFile(filepath.Join(dump, name))
		if err != nil {
			t.Fatalf("%s: %v (did the agent and the verification run?)\n%s", name, err, stderr)
		}
		if strings.Contains(string(b), key) || strings.Contains(string(b), model.URL) {
			t.Errorf("%s holds the key or the model's address:\n%s", name, b)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dump, "agent.env"))
	e2e.Contains(t, "the agent's environment", string(b), "MY_API_KEY="+modelproxy.Placeholder("MY_API_KEY"), "MY_API_BASE_URL=http://127.0.0.1:")
	if b, _ := os.ReadFile(filepath.Join(dump, "verify.env")); strings.Contains(string(b), "MY_API_KEY") {
		t.Errorf("the verification command got MY_API_KEY:\n%s", b)
	}
}
