package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// TestProgressLineOnlyOffTheRunner runs the quick start with stderr on a
// real terminal (a pty): the live progress line is drawn there, and not
// when GITHUB_ACTIONS=true says the terminal is a runner's (a self-hosted
// runner may give one), where the log wants its ::group:: blocks alone.
func TestProgressLineOnlyOffTheRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	for _, tc := range []struct {
		name    string
		actions string
		drawn   bool
	}{
		{"a terminal", "", true},
		{"a runner's terminal", "true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("../../examples/quickstart")); err != nil {
				t.Fatal(err)
			}
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pty on this machine: %v", err)
			}
			defer ptmx.Close()
			cmd := exec.Command(bin, "-C", dir, "--log-format", "json", "run")
			cmd.Env = append(cleanEnv(os.Environ()), "GITHUB_ACTIONS="+tc.actions)
			var stdout bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, tty
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close() // the child holds its own copy: EOF (EIO) when it exits
			var seen bytes.Buffer
			if _, err := io.Copy(&seen, ptmx); err != nil && !errors.Is(err, syscall.EIO) {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("run: %v\n%s\n%s", err, stdout.String(), seen.String())
			}
			if !strings.Contains(stdout.String(), "3/3") {
				t.Fatalf("the quick start did not reach 3/3:\n%s", stdout.String())
			}
			if drawn := strings.Contains(seen.String(), "\r\033[K⟳ "); drawn != tc.drawn {
				t.Fatalf("progress line drawn: %v, want %v; the terminal got:\n%q", drawn, tc.drawn, tail(seen.String(), 600))
			}
		})
	}
}

// cleanEnv is env without the variables of a runner (GITHUB_*, RUNNER_*),
// so that each case says alone whether it is on one.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "RUNNER_") {
			out = append(out, kv)
		}
	}
	return out
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestHeartbeatOnATerminal: during a long rotation the progress line on a
// terminal is redrawn with the rotation's elapsed time and the file its
// output goes to. The agent waits until the test has seen a redraw (an
// elapsed time of at least 1s, which only the heartbeat draws), so the
// test waits on that event, not on a clock. A runner never gets the line
// (TestProgressLineOnlyOffTheRunner).
func TestHeartbeatOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, -c, 'cat >/dev/null; while [ ! -f release ]; do sleep 0.05; done; echo RALPH_STATUS: CONTINUE']}\nstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"specs/a.spec.md": "# A\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty on this machine: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(bin, "-C", dir, "--log-format", "json", "run", "--max-rotations", "1")
	cmd.Env = cleanEnv(os.Environ())
	cmd.Stdout, cmd.Stderr = io.Discard, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	// Read the terminal until the heartbeat has redrawn the line.
	beat := regexp.MustCompile(`⟳ iteration 1 · specs/a\.spec\.md · coder 1/\d+ · counter 0/3 · [1-9][0-9hms.]* · output: \.ralph/current\.log`)
	found := make(chan string, 1)
	var seen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		sent := false
		for {
			n, err := ptmx.Read(buf)
			seen.Write(buf[:n])
			if !sent && beat.Match(seen.Bytes()) {
				found <- beat.FindString(seen.String())
				sent = true
			}
			if err != nil {
				if !sent {
					close(found)
				}
				return
			}
		}
	}()
	select {
	case line, ok := <-found:
		if !ok {
			t.Fatal("ralph-ci ended before its heartbeat was drawn")
		}
		t.Logf("heartbeat: %q", line)
	case <-time.After(2 * time.Minute): // a guard against a hang only
		_ = cmd.Process.Kill()
		t.Fatal("no heartbeat within 2 minutes")
	}
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 3 { // max rotations reached
			t.Fatalf("run: %v", err)
		}
	}
}
