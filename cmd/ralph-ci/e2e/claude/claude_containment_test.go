//go:build unix

package claude

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// The real Claude Code CLI's Bash tool starts every command in a session
// of its own; its command starts `sleep 9001 &` and a setsid'd sleep 9002
// that ignores SIGTERM. Neither outlives the rotation: when it ends by
// itself, when the agent's timeout passes, and when ralph-ci is killed
// with SIGKILL (the shepherd gets SIGTERM from the kernel and stops them).
func TestClaudeBashChildrenDieWithTheRotation(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	e2e.RequireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := e2e.RalphBinary(t)
	for _, tc := range []struct {
		name    string
		after   string // shell run by the Bash tool after the file is written
		timeout string
	}{
		{"the rotation ends", "", "1m"},
		{"the agent times out", "; sleep 1000", "15s"}, // the later rotations must start the CLI within it, on a loaded machine too
		{"ralph-ci is killed", "; sleep 1000", "1m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, configDir := claudeHome(t)
			repoDir := filepath.Join(t.TempDir(), "repo")
			hello := filepath.Join(repoDir, "hello.txt")
			pids := filepath.Join(e2e.RecordDir(t), "pids") // the Bash tool writes there (RecordsGrant)
			srv := newMessagesServer(t, hello, "hello from claude\n", "IMPLEMENTATION_COMPLETE")
			// In a script: Claude Code 2.1.332's Bash tool refuses a command
			// line that chains sleeps ("Blocked: sleep 9001 followed by …").
			script := filepath.Join(t.TempDir(), "children.sh")
			body := fmt.Sprintf(`sleep 9001 & echo $! >> %[1]q; setsid sh -c 'trap "" TERM; echo $$ >> %[1]q; exec sleep 9002' & while [ "$(wc -l < %[1]q)" -lt 2 ]; do sleep 0.05; done; printf 'hello from claude\n' > %[2]q%[3]s`, pids, hello, tc.after)
			if err := os.WriteFile(script, []byte(body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			srv.bash = "sh " + script
			config := fmt.Sprintf(`agents:
  coder:
    command: [claude, -p, --output-format, json, --permission-mode, acceptEdits, --allowedTools, Bash]
    format: claude
    timeout: %s
%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
%s`, tc.timeout, claudeEnvYAML(srv.URL(), configDir), e2e.RecordsGrant)
			dir := e2e.WriteRepoAt(t, repoDir, map[string]string{
				"ralph.yaml": config, "PROMPT.md": "# Hello\n\nCreate hello.txt.\n", ".gitignore": ".ralph/\n",
			})
			env := e2e.AgentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")
			if tc.name == "ralph-ci is killed" {
				cmd := exec.Command(bin, "run")
				cmd.Dir, cmd.Env = dir, env
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				started := waitPids(t, pids, 60*time.Second)
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				defer box.RemoveStale() // the killed run's cgroup
				// The shepherd's grace period (10 s) and some.
				assertGone(t, started, 20*time.Second)
				return
			}
			code, stdout, stderr := e2e.RunRalph(t, bin, dir, env, 90*time.Second)
			started := waitPids(t, pids, 0)
			assertGone(t, started, 0)
			if code != 0 {
				t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}

// waitPids waits up to d for the two pids the Bash command writes.
func waitPids(t *testing.T, file string, d time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		raw, _ := os.ReadFile(file)
		if f := strings.Fields(string(raw)); len(f) == 2 {
			var pids []int
			for _, s := range f {
				pid, err := strconv.Atoi(s)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			return pids
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("the Bash tool did not write two pids: %q", raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertGone requires the processes gone within d.
func assertGone(t *testing.T, pids []int, d time.Duration) {
	t.Helper()
	for _, pid := range procs.Survivors(pids, d) {
		t.Errorf("process %d (sleep 900x) outlived the rotation", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
