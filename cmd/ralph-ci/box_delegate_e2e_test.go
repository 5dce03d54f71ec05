//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/box"
)

// survivorAgent leaves a setsid'd process behind ($OUT/survivor holds its
// pid once it runs), then kills its shepherd.
const survivorAgent = `cat > /dev/null
echo work > work.txt
setsid sh -c 'echo $$ > "$OUT/survivor"; exec sleep 1000' < /dev/null > /dev/null 2>&1 &
until [ -s "$OUT/survivor" ]; do sleep 0.01; done
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
` + killShepherd

// boxRunAs runs ralph-ci as a new user (sudo: with passwordless sudo) in
// this test's cgroup, which is root's, so not the user's to write: no
// cgroup is delegated to it. It returns the exit code, the log, $OUT and
// ralph-ci's pid.
func boxRunAs(t *testing.T, prefix string, sudo bool, agent string) (int, string, string, int) {
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
	var u sudoUser
	t.Cleanup(func() { // runs last: what the test made is gone
		if u.name == "" {
			return
		}
		for _, p := range []string{base, "/etc/sudoers.d/" + u.name, "/var/tmp/ralph-ci-" + strconv.Itoa(u.uid)} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s is left", p)
			}
		}
		if _, err := user.Lookup(u.name); err == nil {
			t.Errorf("the user %s is left", u.name)
		}
	})
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u = newUser(t, filepath.Join(base, "home"), prefix, sudo)
	bin := filepath.Join(base, "bin", "ralph-ci")
	copyFile(t, ralphBinary(t), bin, 0o755)
	out := filepath.Join(base, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := writeRepoAt(t, filepath.Join(base, "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"agent.sh": agent, "PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
	})
	for _, p := range []string{dir, out, u.home} {
		chownTree(t, p, u)
	}
	t.Cleanup(func() { os.RemoveAll("/var/tmp/ralph-ci-" + strconv.Itoa(u.uid)) })
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + u.home, "OUT=" + out, "GIT_CONFIG_NOSYSTEM=1"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := asUser(u, -1, dir, env, bin, "--log-format", "json", "run", "--max-rotations", "5")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("ralph-ci did not end:\n%s", stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stderr.String(), out, cmd.Process.Pid
}

// leftCgroups lists the cgroups of the ralph-ci run pid (the run's, and
// the one it delegated to itself) left at the cgroup2 mount's root or
// below this test's cgroup.
func leftCgroups(t *testing.T, pid int) []string {
	t.Helper()
	var left []string
	for _, where := range []func() (string, error){box.CgroupMount, box.OwnCgroup} {
		dir, err := where()
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"ralph-ci-", "ralph-ci-sudo-"} {
			f := filepath.Join(dir, name+strconv.Itoa(pid))
			if _, err := os.Stat(f); err == nil {
				left = append(left, f)
			}
		}
	}
	return left
}

// TestBoxDelegatedThroughSudo: ralph-ci runs as a user with passwordless
// sudo (GitHub's runner user) in a cgroup that is root's, with none
// delegated to it. It delegates a cgroup to itself through sudo -n and
// boxes the agent: the process the agent left behind after killing its
// shepherd is killed and named, the run ends with exit 0, and no cgroup
// of the run is left.
func TestBoxDelegatedThroughSudo(t *testing.T) {
	code, log, out, pid := boxRunAs(t, "rcdel", true, survivorAgent)
	raw, _ := os.ReadFile(filepath.Join(out, "survivor"))
	survivor := strings.TrimSpace(string(raw))
	if survivor == "" {
		t.Fatalf("the agent left no process behind (exit %d):\n%s", code, log)
	}
	if _, err := os.Stat("/proc/" + survivor); err == nil {
		n, _ := strconv.Atoi(survivor)
		_ = syscallKill(n)
		t.Errorf("the survivor %s still runs", survivor)
	}
	if !strings.Contains(log, "delegated a cgroup to itself through sudo") {
		t.Errorf("the log does not say the box was delegated through sudo:\n%s", log)
	}
	if !strings.Contains(log, `"kind":"cgroup"`) {
		t.Errorf("the run was not boxed:\n%s", log)
	}
	if !strings.Contains(log, survivor+" (sleep)") {
		t.Errorf("the log does not name the survivor %s (sleep):\n%s", survivor, log)
	}
	if code != 0 {
		t.Errorf("exit %d, want 0:\n%s", code, log)
	}
	if left := leftCgroups(t, pid); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// TestBoxRefusesWithoutSudo: the same user without sudo gets no box:
// run refuses, naming the opt-out and the ways to get one (root,
// passwordless sudo).
func TestBoxRefusesWithoutSudo(t *testing.T) {
	code, log, _, pid := boxRunAs(t, "rcnos", false, "cat > /dev/null\necho RALPH_STATUS: DONE\n")
	if code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, log)
	}
	for _, want := range []string{"run --box off", "box: {mode: off}", "passwordless sudo", "root"} {
		if !strings.Contains(log, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, log)
		}
	}
	if left := leftCgroups(t, pid); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}

// syscallKill kills pid with SIGKILL.
func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
