package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The Claude Code end-to-end test runs ralph-ci (the real binary) with the
// real Claude Code CLI (npm @anthropic-ai/claude-code, installed by
// .ci/run) as its coder agent, the CLI pointed at a scripted Messages API
// server in this process (claude_server_test.go). Claude Code itself
// writes hello.txt through its Write tool and reports DONE; ralph-ci must
// record the change, the status and the cost, and take the spec to 3/3.
//
// What the CLI needs to run headless here (checked with 2.1.332):
//   - ANTHROPIC_BASE_URL=http://127.0.0.1:PORT and any ANTHROPIC_API_KEY: in
//     -p mode a key from the environment is used without the interactive
//     "use this API key?" question;
//   - CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (no telemetry, update or
//     feature-flag calls: the only requests left are HEAD / and
//     POST /v1/messages?beta=true) and DISABLE_AUTOUPDATER=1;
//   - --permission-mode acceptEdits: as root the CLI refuses
//     --dangerously-skip-permissions, and acceptEdits lets Write run;
//   - a private CLAUDE_CONFIG_DIR and HOME, so that the developer's
//     ~/.claude (settings, hooks, MCP servers, credentials) is not read. -p
//     runs with an empty config dir; we still seed .claude.json with
//     hasCompletedOnboarding, since anthropics/claude-code#95217 reports
//     `claude -p` exiting silently for a user without onboarding state (with
//     an apiKeyHelper), and #4714 the onboarding ignoring env settings.

// requireAgentCLI skips the test when the agent CLI is not on PATH, except
// in CI (CI=true), where .ci/run installs it and a skip would hide a broken
// install: there it fails.
func requireAgentCLI(t testing.TB, name, npmPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := fmt.Sprintf("%s is not on PATH (npm install -g %s): the end-to-end test with the real CLI needs it", name, npmPackage)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI=true, so this is a failure, not a skip (.ci/run installs it)", msg)
	}
	t.Skip(msg)
	return ""
}

// agentEnv is the environment for ralph-ci and so for the agent: this
// process's, without the variables that would make the CLI use the
// developer's account, config or a proxy, and with HOME and the XDG dirs
// in home.
func agentEnv(home string, drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		skip := strings.HasSuffix(u, "_PROXY") || u == "HOME" || strings.HasPrefix(u, "XDG_")
		for _, p := range drop {
			skip = skip || strings.HasPrefix(u, p)
		}
		if !skip {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	)
}

// rotationLog is one "rotation" log line of ralph-ci run.
type rotationLog struct {
	Spec      string   `json:"spec"`
	Iteration int      `json:"iteration"`
	Status    string   `json:"status"`
	Counter   string   `json:"counter"`
	Changed   int      `json:"changed"`
	CostUSD   *float64 `json:"cost_usd"`
	Reason    string   `json:"reason"`
	Message   string   `json:"message"`
}

func rotationLogs(t *testing.T, stderr []byte) []rotationLog {
	t.Helper()
	var out []rotationLog
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l rotationLog
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Message == "rotation" {
			out = append(out, l)
		}
	}
	return out
}

// runRalph runs `ralph-ci --log-format json run` in dir and returns its
// exit code, stdout and stderr.
func runRalph(t testing.TB, bin, dir string, env []string, timeout time.Duration) (int, []byte, []byte) {
	t.Helper()
	return runRalphArgs(t, bin, dir, env, timeout, "--log-format", "json", "run")
}

// hangGuard is the least time runRalphArgs gives ralph-ci: a guard
// against a hang only. On a loaded 2-core machine a rotation of a real
// agent CLI (a Node program started for every rotation) took over a
// minute, and TestGeminiCLIEndToEnd failed at its 90 s guard although
// nothing hung (issue 35); no verdict may depend on such a clock.
const hangGuard = 8 * time.Minute

// runRalphArgs runs ralph-ci with args in dir and returns its exit code,
// stdout and stderr; it fails the test if it does not end in timeout (at
// least hangGuard: only a hang fails it).
func runRalphArgs(t testing.TB, bin, dir string, env []string, timeout time.Duration, args ...string) (int, []byte, []byte) {
	t.Helper()
	timeout = max(timeout, hangGuard)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	// On timeout, SIGTERM: ralph-ci then stops the agent's process group
	// (a SIGKILL would leave the CLI running).
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ralph-ci %s did not finish in %v\nstderr:\n%s", strings.Join(args, " "), timeout, stderr.Bytes())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ralph-ci %s: %v", strings.Join(args, " "), err)
	}
	return code, stdout.Bytes(), stderr.Bytes()
}

func TestClaudeCodeEndToEnd(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	claude := requireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	if out, err := exec.Command(claude, "--version").CombinedOutput(); err != nil {
		t.Fatalf("%s --version: %v\n%s", claude, err, out)
	} else {
		t.Logf("%s", bytes.TrimSpace(out))
	}
	bin := ralphBinary(t)

	for _, tc := range []struct {
		name  string
		agent string // the coder agent in ralph.yaml, without env
	}{
		{"json", "command: [claude, -p, --output-format, json, --permission-mode, acceptEdits]\n    format: claude"},
		// The preset: claude -p --output-format stream-json --verbose
		// --permission-mode acceptEdits, format claude.
		{"stream-json preset", "preset: claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			home, configDir := claudeHome(t)

			const content = "hello from claude\n"
			// The server needs the absolute path for the Write tool.
			repoDir := filepath.Join(t.TempDir(), "repo")
			hello := filepath.Join(repoDir, "hello.txt")
			srv := newMessagesServer(t, hello, content, "IMPLEMENTATION_COMPLETE")

			config := fmt.Sprintf(`agents:
  coder:
    %s
    timeout: 5m # a guard against a hang: a loaded machine slows the CLI
%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
`, tc.agent, claudeEnvYAML(srv.URL(), configDir))
			prompt := "# Hello\n\nCreate hello.txt at the repository root containing exactly \"hello from claude\".\n"
			dir := writeRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": prompt, ".gitignore": ".ralph/\n",
			})

			// ANTHROPIC_*/CLAUDE* of the developer's environment (a key, a
			// model, Bedrock or Vertex switches, CLAUDECODE when run from a
			// Claude Code session) would change what the CLI does.
			env := agentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")
			code, stdout, stderr := runRalph(t, bin, dir, env, 90*time.Second)
			elapsed := time.Since(start)
			t.Logf("ralph-ci run took %v", elapsed.Round(time.Millisecond))
			checkRoutes(t, &srv.requestLog, "claude_server_test.go")
			srv.mu.Lock()
			toolErrors, toolOK, prompts := srv.toolErrors, srv.toolOK, srv.prompts
			srv.mu.Unlock()
			if len(toolErrors) > 0 {
				t.Errorf("Claude Code's Write tool failed: %q", toolErrors)
			}
			if len(toolOK) != 1 {
				t.Errorf("want exactly one successful Write tool_result, got %q", toolOK)
			}
			checkFirstPrompt(t, prompts, "hello from claude")
			checkVerifiedLoop(t, loopRun{
				code: code, stdout: stdout, stderr: stderr, dir: dir,
				file: hello, content: content, agent: "Claude Code", wantCost: true,
				history: []string{`"type":"result"`, `"total_cost_usd"`, `<promise>IMPLEMENTATION_COMPLETE</promise>`, `RALPH_STATUS: DONE`},
			})
		})
	}
}

// claudeHome is a private HOME for Claude Code with its config dir,
// seeded with the onboarding state (see the notes above).
func claudeHome(t testing.TB) (home, configDir string) {
	t.Helper()
	home = t.TempDir()
	configDir = filepath.Join(home, ".claude")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configDir, ".claude.json"), []byte(`{"hasCompletedOnboarding": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, configDir
}

// claudeEnvYAML is the env block (under an agent of ralph.yaml) that points
// Claude Code at the scripted server url with its config in configDir,
// plus extra "KEY: value" lines.
func claudeEnvYAML(url, configDir string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    env:\n      ANTHROPIC_BASE_URL: %q\n      ANTHROPIC_API_KEY: sk-ant-test-not-a-real-key\n", url)
	b.WriteString("      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: \"1\"\n      DISABLE_AUTOUPDATER: \"1\"\n")
	fmt.Fprintf(&b, "      CLAUDE_CONFIG_DIR: %q\n", configDir)
	for _, kv := range extra {
		b.WriteString("      " + kv + "\n")
	}
	return b.String()
}

// checkRoutes logs the requests the CLI made and fails the test on any the
// scripted server (defined in file) did not expect.
func checkRoutes(t *testing.T, l *requestLog, file string) {
	t.Helper()
	reqs := l.Requests()
	t.Logf("the CLI made %d requests:\n  %s", len(reqs), strings.Join(reqs, "\n  "))
	if u := l.Unexpected(); len(u) > 0 {
		t.Errorf("the CLI called routes the scripted server does not serve (answered 404); teach %s what to answer:\n  %s", file, strings.Join(u, "\n  "))
	}
}

// loopRun is one `ralph-ci run` of the end-to-end tests with a real agent
// CLI on a repository whose only spec is PROMPT.md.
type loopRun struct {
	code           int
	stdout, stderr []byte
	dir            string // the repository
	file, content  string // the file the agent must have written, and its content
	agent          string // the CLI's name, for messages
	wantCost       bool   // the CLI reports a cost: every rotation logs cost_usd > 0
	history        []string
}

// checkVerifiedLoop checks the run every real-CLI test expects: exit 0; the
// file written by the agent; three rotations of PROMPT.md, all DONE, the
// first changing one file (1/3), the next two none (2/3, 3/3); state.json
// at 3/3; and the history log of rotation 1 holding the CLI's output.
func checkVerifiedLoop(t *testing.T, r loopRun) {
	t.Helper()
	// The failures, then ralph-ci's output once.
	var failures []string
	failf := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	defer func() {
		if len(failures) > 0 {
			t.Errorf("%s\nralph-ci stdout:\n%s\nralph-ci stderr:\n%s", strings.Join(failures, "\n"), r.stdout, r.stderr)
		}
	}()
	if r.code != 0 {
		failf("ralph-ci run exited %d, want 0", r.code)
	}
	captureHistory(t, r.dir)
	got, err := os.ReadFile(r.file)
	if err != nil || string(got) != r.content {
		failf("%s = %q, %v; want %q written by %s", filepath.Base(r.file), got, err, r.content, r.agent)
	}

	for _, line := range bytes.Split(r.stderr, []byte("\n")) {
		if bytes.Contains(line, []byte(`"message":"rotation"`)) {
			t.Logf("%s", line)
		}
	}
	rots := rotationLogs(t, r.stderr)
	if len(rots) != 3 {
		failf("want 3 rotations, got %d", len(rots))
	}
	for i, want := range []struct {
		counter string
		changed int
	}{{"1/3", 1}, {"2/3", 0}, {"3/3", 0}} {
		if i >= len(rots) {
			break
		}
		l := rots[i]
		if l.Spec != "PROMPT.md" || l.Iteration != i+1 || l.Status != "DONE" || l.Counter != want.counter || l.Changed != want.changed {
			failf("rotation %d: spec %s, iteration %d, status %s, counter %s, changed %d; want PROMPT.md, %d, DONE, %s, %d",
				i+1, l.Spec, l.Iteration, l.Status, l.Counter, l.Changed, i+1, want.counter, want.changed)
		}
		if r.wantCost && (l.CostUSD == nil || *l.CostUSD <= 0) {
			failf("rotation %d: no cost_usd > 0 (the total_cost_usd %s reported)", i+1, r.agent)
		}
	}

	var st struct {
		Iteration int `json:"iteration"`
		Specs     []struct {
			Path       string `json:"path"`
			DoneCount  int    `json:"done_count"`
			LastStatus string `json:"last_status"`
		} `json:"specs"`
	}
	if err := json.Unmarshal([]byte(readState(t, r.dir)), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Specs) != 1 || st.Specs[0].DoneCount != 3 || st.Specs[0].LastStatus != "DONE" || st.Iteration != 3 {
		t.Errorf("state.json: %+v, want PROMPT.md at 3/3 DONE after 3 iterations", st)
	}

	logs, _ := filepath.Glob(filepath.Join(r.dir, ".ralph", "history", "*", "001.log"))
	if len(logs) != 1 {
		t.Fatalf("history logs of rotation 1: %q", logs)
	}
	h, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range r.history {
		if !bytes.Contains(h, []byte(want)) {
			t.Errorf("history log %s lacks %s (%s's output):\n%.4000s", logs[0], want, r.agent, h)
		}
	}
}

// writeRepoAt is writeRepo at a given (new) directory.
func writeRepoAt(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
	return dir
}

// captureHistory copies the history log of rotation 1 (the CLI's real
// output) to $RALPH_CAPTURE_DIR when set: that is how the fixtures in
// pipeline/agent/testdata/captured were made.
func captureHistory(t *testing.T, dir string) {
	out := os.Getenv("RALPH_CAPTURE_DIR")
	if out == "" {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".ralph", "history", "*", "001.log"))
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err == nil {
			name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + ".log"
			err = os.WriteFile(filepath.Join(out, name), b, 0o644)
		}
		if err != nil {
			t.Errorf("capture: %v", err)
		}
	}
}

// checkFirstPrompt checks that the first conversation the agent CLI held
// carried ralph-ci's prompt: the spec (its text names want) and the
// promise ralph-ci asks for.
func checkFirstPrompt(t *testing.T, prompts []string, want string) {
	t.Helper()
	if len(prompts) == 0 || !strings.Contains(prompts[0], want) || !strings.Contains(prompts[0], "<promise>IMPLEMENTATION_COMPLETE</promise>") {
		t.Errorf("the first conversation's prompt does not carry PROMPT.md and the promise ralph-ci asks for:\n%.2000s", strings.Join(prompts, "\n---\n"))
	}
}
