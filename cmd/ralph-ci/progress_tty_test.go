package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// TestProgressLineOnlyOffTheRunner runs the quick start with stderr on a
// real terminal (a pty): the live progress line is drawn there, and not
// when GITHUB_ACTIONS=true says the terminal is a runner's (a self-hosted
// runner may give one), where the log wants its ::group:: blocks alone.
func TestProgressLineOnlyOffTheRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := ralphBinary(t)
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
