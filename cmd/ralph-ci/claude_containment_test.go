package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real Claude Code CLI's Bash tool starts every command in a session
// of its own; its command starts `sleep 9001 &` and a setsid'd sleep
// 9002 that ignores SIGTERM. Neither is alive once the run is over: the
// shepherd stopped them when the rotation ended.
func TestClaudeBashChildrenDieWithTheRotation(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("runs ralph-ci and the real Claude Code CLI")
	}
	requireAgentCLI(t, "claude", "@anthropic-ai/claude-code")
	bin := ralphBinary(t)
	home, configDir := claudeHome(t)
	repoDir := filepath.Join(t.TempDir(), "repo")
	hello := filepath.Join(repoDir, "hello.txt")
	pids := filepath.Join(t.TempDir(), "pids")
	srv := newMessagesServer(t, hello, "hello from claude\n", "IMPLEMENTATION_COMPLETE")
	srv.bash = fmt.Sprintf(`sleep 9001 & echo $! >> %[1]q; setsid sh -c 'trap "" TERM; echo $$ >> %[1]q; exec sleep 9002' & while [ "$(wc -l < %[1]q)" -lt 2 ]; do sleep 0.05; done; printf 'hello from claude\n' > %[2]q`, pids, hello)
	config := fmt.Sprintf(`agents:
  coder:
    command: [claude, -p, --output-format, json, --permission-mode, acceptEdits, --allowedTools, Bash]
    format: claude
    timeout: 1m
%sstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
`, claudeEnvYAML(srv.URL(), configDir))
	dir := writeRepoAt(t, repoDir, map[string]string{
		"ralph.yaml": config, "PROMPT.md": "# Hello\n\nCreate hello.txt.\n", ".gitignore": ".ralph/\n",
	})
	env := agentEnv(home, "ANTHROPIC_", "CLAUDE", "DISABLE_")
	code, stdout, stderr := runRalph(t, bin, dir, env, 90*time.Second)
	raw, err := os.ReadFile(pids)
	if err != nil {
		t.Fatalf("the Bash tool did not run (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
	}
	var started []int
	for _, f := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, pid)
	}
	if len(started) != 2 {
		t.Fatalf("pids %q", raw)
	}
	for _, pid := range started {
		if processRunning(pid) {
			t.Errorf("process %d (sleep 900x) outlived the run (exit %d)", pid, code)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if code != 0 {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// processRunning reports whether pid exists and is not a zombie.
func processRunning(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
