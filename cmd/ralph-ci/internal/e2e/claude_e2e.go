package e2e

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

// RequireAgentCLI skips the test when the agent CLI is not on PATH, except
// in CI (CI=true), where .ci/run installs it and a skip would hide a broken
// install: there it fails.
func RequireAgentCLI(t testing.TB, name, npmPackage string) string {
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

// LogAgentVersion runs the agent CLI at path with --version and logs what
// it says, so a failure names the CLI's version; a CLI that cannot say
// it fails the test.
func LogAgentVersion(t testing.TB, path string) {
	t.Helper()
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", path, err, out)
	}
	t.Logf("%s: %s", filepath.Base(path), bytes.TrimSpace(out))
}

// AgentEnv is the environment for ralph-ci and so for the agent: this
// process's, without the variables that would make the CLI use the
// developer's account, config or a proxy, and with HOME and the XDG dirs
// in home.
func AgentEnv(home string, drop ...string) []string {
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

func RotationLogs(t *testing.T, stderr []byte) []rotationLog {
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

// RunRalph runs `ralph-ci --log-format json run` in dir and returns its
// exit code, stdout and stderr.
func RunRalph(t testing.TB, bin, dir string, env []string, timeout time.Duration) (int, []byte, []byte) {
	t.Helper()
	return RunRalphArgs(t, bin, dir, env, timeout, "--log-format", "json", "run")
}

// HangGuard is the least time RunRalphArgs gives ralph-ci: a guard
// against a hang only. On a loaded 2-core machine a rotation of a real
// agent CLI (a Node program started for every rotation) took over a
// minute, and TestGeminiCLIEndToEnd failed at its 90 s guard although
// nothing hung (issue 35); no verdict may depend on such a clock.
const HangGuard = 8 * time.Minute

// RunRalphArgs runs ralph-ci with args in dir and returns its exit code,
// stdout and stderr; it fails the test if it does not end in timeout (at
// least HangGuard: only a hang fails it).
func RunRalphArgs(t testing.TB, bin, dir string, env []string, timeout time.Duration, args ...string) (int, []byte, []byte) {
	t.Helper()
	timeout = max(timeout, HangGuard)
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

// CheckRoutes logs the requests the CLI made and fails the test on any the
// scripted server (defined in file) did not expect.
func CheckRoutes(t *testing.T, l *RequestLog, file string) {
	t.Helper()
	reqs := l.Requests()
	t.Logf("the CLI made %d requests:\n  %s", len(reqs), strings.Join(reqs, "\n  "))
	if u := l.Unexpected(); len(u) > 0 {
		t.Errorf("the CLI called routes the scripted server does not serve (answered 404); teach %s what to answer:\n  %s", file, strings.Join(u, "\n  "))
	}
}

// LoopRun is one `ralph-ci run` of the end-to-end tests with a real agent
// CLI on a repository whose only spec is PROMPT.md.
type LoopRun struct {
	Code           int
	Stdout, Stderr []byte
	Dir            string // the repository
	File, Content  string // the file the agent must have written, and its content
	Agent          string // the CLI's name, for messages
	WantCost       bool   // the CLI reports a cost: every rotation logs cost_usd > 0
	History        []string
}

// CheckVerifiedLoop checks the run every real-CLI test expects: exit 0; the
// file written by the agent; three rotations of PROMPT.md, all DONE, the
// first changing one file (1/3), the next two none (2/3, 3/3); state.json
// at 3/3; and the history log of rotation 1 holding the CLI's output.
func CheckVerifiedLoop(t *testing.T, r LoopRun) {
	t.Helper()
	// The failures, then ralph-ci's output once.
	var failures []string
	failf := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	defer func() {
		if len(failures) > 0 {
			t.Errorf("%s\nralph-ci stdout:\n%s\nralph-ci stderr:\n%s", strings.Join(failures, "\n"), r.Stdout, r.Stderr)
		}
	}()
	if r.Code != 0 {
		failf("ralph-ci run exited %d, want 0", r.Code)
	}
	captureHistory(t, r.Dir)
	got, err := os.ReadFile(r.File)
	if err != nil || string(got) != r.Content {
		failf("%s = %q, %v; want %q written by %s", filepath.Base(r.File), got, err, r.Content, r.Agent)
	}

	for _, line := range bytes.Split(r.Stderr, []byte("\n")) {
		if bytes.Contains(line, []byte(`"message":"rotation"`)) {
			t.Logf("%s", line)
		}
	}
	rots := RotationLogs(t, r.Stderr)
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
		if r.WantCost && (l.CostUSD == nil || *l.CostUSD <= 0) {
			failf("rotation %d: no cost_usd > 0 (the total_cost_usd %s reported)", i+1, r.Agent)
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
	if err := json.Unmarshal([]byte(ReadState(t, r.Dir)), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Specs) != 1 || st.Specs[0].DoneCount != 3 || st.Specs[0].LastStatus != "DONE" || st.Iteration != 3 {
		t.Errorf("state.json: %+v, want PROMPT.md at 3/3 DONE after 3 iterations", st)
	}

	logs, _ := filepath.Glob(filepath.Join(r.Dir, ".ralph", "history", "*", "001.log"))
	if len(logs) != 1 {
		t.Fatalf("history logs of rotation 1: %q", logs)
	}
	h, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range r.History {
		if !bytes.Contains(h, []byte(want)) {
			t.Errorf("history log %s lacks %s (%s's output):\n%.4000s", logs[0], want, r.Agent, h)
		}
	}
}

// WriteRepoAt is writeRepo at a given (new) directory.
func WriteRepoAt(t testing.TB, dir string, files map[string]string) string {
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
	Git(t, dir, "init", "-q")
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
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

// CheckFirstPrompt checks that the first conversation the agent CLI held
// carried ralph-ci's prompt: the spec (its text names want) and the
// promise ralph-ci asks for.
func CheckFirstPrompt(t *testing.T, prompts []string, want string) {
	t.Helper()
	if len(prompts) == 0 || !strings.Contains(prompts[0], want) || !strings.Contains(prompts[0], "<promise>IMPLEMENTATION_COMPLETE</promise>") {
		t.Errorf("the first conversation's prompt does not carry PROMPT.md and the promise ralph-ci asks for:\n%.2000s", strings.Join(prompts, "\n---\n"))
	}
}
