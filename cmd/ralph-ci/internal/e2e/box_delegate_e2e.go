//go:build linux

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/box"
)

// boxRun is a repository whose agent is agent.sh, owned by a new user
// who runs ralph-ci in it; $OUT is out, a folder of the user's.
type boxRun struct {
	U             SudoUser
	Dir, Out, Bin string
	Env           []string
}

// NewBoxRun makes the user (sudo: with passwordless sudo), the repository
// (config: more lines of its ralph.yaml, where $OUT is $OUT's path) and
// $OUT, all removed when the test ends (a last cleanup checks).
func NewBoxRun(t *testing.T, prefix string, sudo bool, agent, config string) *boxRun {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creates a user: needs root")
	}
	own, err := box.OwnCgroup()
	if err != nil {
		t.Skip(err)
	}
	if fi, err := os.Stat(filepath.Join(own, "cgroup.procs")); err != nil || fi.Sys() == nil {
		t.Skip("no cgroup v2 here")
	}
	base, err := os.MkdirTemp("", "ralph-ci-deleg-")
	if err != nil {
		t.Fatal(err)
	}
	var u SudoUser
	t.Cleanup(func() { // runs last: what the test made is gone
		if u.Name == "" {
			return
		}
		for _, p := range []string{base, "/etc/sudoers.d/" + u.Name, "/var/tmp/ralph-ci-" + strconv.Itoa(u.UID)} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s is left", p)
			}
		}
		if _, err := user.Lookup(u.Name); err == nil {
			t.Errorf("the user %s is left", u.Name)
		}
	})
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u = NewUser(t, filepath.Join(base, "home"), prefix, sudo)
	bin := filepath.Join(base, "bin", "ralph-ci")
	CopyFile(t, RalphBinary(t), bin, 0o755)
	out := filepath.Join(base, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	config = strings.ReplaceAll(config, "$OUT", out)
	grant := "box: {writable: [" + out + "]}\n" // the agent notes what it saw in $OUT
	if strings.Contains(config, "box:") {
		grant = "" // the test's own box section
	}
	dir := WriteRepoAt(t, filepath.Join(base, "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" + config + grant,
		"agent.sh": agent, "PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
	})
	for _, p := range []string{dir, out, u.Home} {
		ChownTree(t, p, u)
	}
	t.Cleanup(func() { os.RemoveAll("/var/tmp/ralph-ci-" + strconv.Itoa(u.UID)) })
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + u.Home, "OUT=" + out, "GIT_CONFIG_NOSYSTEM=1"}
	return &boxRun{U: u, Dir: dir, Out: out, Bin: bin, Env: env}
}

// Start starts ralph-ci run as the user in this test's cgroup; its
// output goes to the buffer returned.
func (r *boxRun) Start(t *testing.T) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := AsUser(r.U, -1, r.Dir, r.Env, r.Bin, "--log-format", "json", "run", "--max-rotations", "5")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &log
}

// Wait waits for cmd (90 s at most, a guard against a hang) and returns
// its exit code.
func (r *boxRun) Wait(t *testing.T, cmd *exec.Cmd, log *bytes.Buffer) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("ralph-ci did not end:\n%s", log.String())
	}
	return cmd.ProcessState.ExitCode()
}

// Delegate delegates a cgroup below this test's own to the run's user,
// as systemd delegates one, and returns it opened for AsUser (closed
// when the test ends).
func (r *boxRun) Delegate(t *testing.T) int {
	t.Helper()
	own, err := box.OwnCgroup()
	if err != nil {
		t.Skip(err)
	}
	fd, err := syscall.Open(delegateCgroup(t, own, r.U), syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return fd
}
