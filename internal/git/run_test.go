package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a repository with one commit, with git run as a person would
// (not through the doorway).
func repo(t testing.TB) string {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "P"}, {"config", "user.email", "p@example.com"},
		{"commit", "-q", "--allow-empty", "-m", "first"}} {
		person(t, dir, args...)
	}
	return dir
}

func person(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestEnvironmentIsTheDoorways: git gets none of the job's GIT_*
// variables, and a caller's only for the identity and the index.
func TestEnvironmentIsTheDoorways(t *testing.T) {
	dir := repo(t)
	t.Setenv("GIT_DIR", "/nowhere")
	t.Setenv("GIT_SSH_COMMAND", "evil")
	out, err := Command{Dir: dir, Args: []string{"var", "GIT_AUTHOR_IDENT"},
		Env: []string{"GIT_AUTHOR_NAME=Ralph", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_CONFIG_COUNT=1", "GIT_EXEC_PATH=/tmp"}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "Ralph <r@example.com>") {
		t.Errorf("identity: %q", out)
	}
	cmd, _, err := Command{Dir: dir, Args: []string{"status"}, Env: []string{"GIT_CONFIG_PARAMETERS='core.pager=x'"}}.build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GIT_DIR=/nowhere") || strings.HasPrefix(kv, "GIT_SSH_COMMAND=") || strings.HasPrefix(kv, "GIT_CONFIG_PARAMETERS=") || strings.HasPrefix(kv, "GIT_EXEC_PATH=") {
			t.Errorf("git's environment has %s", kv)
		}
	}
}

// TestNoHookRuns: a hook the agent wrote never runs.
func TestNoHookRuns(t *testing.T) {
	dir := repo(t)
	canary := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+canary+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Command{Dir: dir, Args: []string{"commit", "-q", "--allow-empty", "-m", "x"},
		Env: []string{"GIT_AUTHOR_NAME=R", "GIT_AUTHOR_EMAIL=r@x", "GIT_COMMITTER_NAME=R", "GIT_COMMITTER_EMAIL=r@x"}}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the agent's pre-commit hook ran")
	}
}

// TestCredentialOnlyToRemoteCommands: fetch and push get the credential,
// nothing else does.
func TestCredentialOnlyToRemoteCommands(t *testing.T) {
	dir := repo(t)
	UseCredentials(Credential{URL: "https://example.com/", Header: "AUTHORIZATION: basic c2VjcmV0"})
	defer UseCredentials()
	for args, want := range map[string]bool{"fetch origin": true, "-c protocol.version=2 fetch origin": true, "push origin x": true,
		"status": false, "config --list": false, "-c x=fetch log": false, "rebase --onto x y": false} {
		cmd, _, err := Command{Dir: dir, Args: strings.Fields(args)}.build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(cmd.Env, "\n"), "c2VjcmV0")
		if got != want {
			t.Errorf("git %s: credential given %v, want %v", args, got, want)
		}
	}
}

// A fork's URL (UsePushURL) may be named by git push alone, which sends
// its header and none of origin's; fetch from it, or a push to any
// other URL, is refused before git runs.
func TestPushURLOnlyForItsPush(t *testing.T) {
	dir := repo(t)
	const fork = "https://example.com/someone/r.git"
	UseCredentials(Credential{URL: "https://example.com/", Header: "AUTHORIZATION: basic b3JpZ2lu"})
	defer UseCredentials()
	if err := UsePushURL(fork, "AUTHORIZATION: basic Zm9yaw=="); err != nil {
		t.Fatal(err)
	}
	defer UsePushURL("", "")
	for args, want := range map[string]string{"push --quiet " + fork + " x:refs/heads/y": "Zm9yaw==",
		"fetch " + fork: "refused", "push https://example.com/other/r.git x": "refused", "ls-remote " + fork: "refused",
		"push origin x": "b3JpZ2lu"} {
		cmd, _, err := Command{Dir: dir, Args: strings.Fields(args)}.build(context.Background())
		if want == "refused" {
			if err == nil {
				t.Errorf("git %s: ran, want it refused", args)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		env := strings.Join(cmd.Env, "\n")
		for _, cred := range []string{"Zm9yaw==", "b3JpZ2lu"} {
			if got := strings.Contains(env, cred); got != (cred == want) {
				t.Errorf("git %s: credential %s given %v, want %v", args, cred, got, cred == want)
			}
		}
	}
	for _, bad := range []string{"ext::sh -c x", "file:///tmp/x", "git@example.com:x.git"} {
		if err := UsePushURL(bad, "AUTHORIZATION: basic x"); err == nil {
			t.Errorf("UsePushURL(%q) accepted", bad)
		}
	}
}

// TestPathIsGitsThenTheSystems: git's PATH is git's own folder, then the
// system's folders, joined as the system joins a list (";" on Windows,
// where a ":" list is one folder that does not exist).
func TestPathIsGitsThenTheSystems(t *testing.T) {
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	var path []string
	for _, kv := range baseEnv() {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = filepath.SplitList(v)
		}
	}
	want := append([]string{filepath.Dir(bin)}, systemPath...)
	if strings.Join(path, "\n") != strings.Join(want, "\n") {
		t.Errorf("git's PATH is %q, want %q", path, want)
	}
}

// Run hands back what git printed: its output, to the caller's writer
// when one is set, and on a failure its error message with the exit
// status.
func TestRunReturnsWhatGitPrinted(t *testing.T) {
	dir := repo(t)
	out, err := Command{Dir: dir, Args: []string{"log", "--format=%s"}}.Run(context.Background())
	if err != nil || string(out) != "first\n" {
		t.Fatalf("log: %q, %v", out, err)
	}
	var w strings.Builder
	out, err = Command{Dir: dir, Args: []string{"log", "--format=%s"}, Stdout: &w}.Run(context.Background())
	if err != nil || out != nil || w.String() != "first\n" {
		t.Fatalf("log to a writer: returned %q, wrote %q, %v", out, w.String(), err)
	}
	_, err = Command{Dir: dir, Args: []string{"rev-parse", "--verify", "no-such-ref"}}.Run(context.Background())
	var ge *Error
	if !errors.As(err, &ge) || ge.Stderr != "fatal: Needed a single revision" {
		t.Fatalf("a failed rev-parse: %#v", err)
	}
	var ee *exec.ExitError
	if !errors.As(ge.Err, &ee) || ee.ExitCode() != 128 {
		t.Fatalf("a failed rev-parse's status: %v", ge.Err)
	}
}
