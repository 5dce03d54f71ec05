//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
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

// sudoAgent finds ralph-ci (the shepherd's parent) and tries to read its
// environment and memory, with and without sudo, and to write as root.
const sudoAgent = `cat > /dev/null
p=$$
while [ "$p" -gt 1 ]; do
  if [ "$(tr '\0' '\n' < /proc/$p/cmdline | head -n 1)" = ralph-ci-shepherd ]; then break; fi
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
R=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
echo "$R" > "$OUT/ralph-pid"
id -u > "$OUT/uid"
env > "$OUT/agent-env"
sudo -n true > "$OUT/sudo.out" 2>&1; echo "sudo true: exit $?" >> "$OUT/sudo.out"
sudo -n cat /proc/$R/environ > "$OUT/sudo-environ" 2>> "$OUT/sudo.out"
sudo -n cat /proc/$R/maps > "$OUT/sudo-maps" 2>> "$OUT/sudo.out"
sudo -n touch /etc/ralph-ci-sudo-probe 2>> "$OUT/sudo.out"
cat /proc/$R/environ > "$OUT/environ" 2> "$OUT/try.out"
cat /proc/$R/maps > "$OUT/maps" 2>> "$OUT/try.out"
head -c 4096 /proc/$R/mem > "$OUT/mem" 2>> "$OUT/try.out"
echo work > work.txt
echo "RALPH_STATUS: CONTINUE"
`

// TestAgentSudoGainsNothing: ralph-ci runs as a user that has
// passwordless sudo (as the runner user of GitHub's hosted runners
// does), in a cgroup delegated to that user as systemd delegates one. The
// agent's sudo fails (no_new_privs), and neither with it nor without
// does the agent read ralph-ci's environment or memory. The test creates
// the user, its sudoers file and the cgroup, and removes them.
func TestAgentSudoGainsNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creates a user: needs root")
	}
	for _, tool := range []string{"sudo", "useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs sudo)", tool)
		}
	}
	secret := "s3cret-" + strconv.Itoa(os.Getpid()) + "-value"
	r := newBoxRun(t, "rcbox", true, sudoAgent, "environment: {remove: [RALPH_TEST_SECRET]}\n")
	u, out := r.u, r.out
	fd := r.delegate(t)

	// The control: the user's sudo works outside ralph-ci.
	if out, err := asUser(u, -1, "", nil, "sudo", "-n", "true").CombinedOutput(); err != nil {
		t.Fatalf("the user's passwordless sudo does not work: %v: %s", err, out)
	}

	env := append(r.env, "GITHUB_TOKEN=token-"+secret, "RALPH_TEST_SECRET="+secret)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := asUser(u, fd, r.dir, env, r.bin, "--log-format", "json", "run", "--max-rotations", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(out, name)); return string(b) }
	t.Logf("exit %d; sudo said: %s; without sudo: %s", cmd.ProcessState.ExitCode(), read("sudo.out"), read("try.out"))
	if got := strings.TrimSpace(read("uid")); got != strconv.Itoa(u.uid) {
		t.Fatalf("the agent did not run as the user (uid %q):\n%s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"kind":"cgroup"`) {
		t.Errorf("ralph-ci did not box the agent in the delegated cgroup:\n%s", stderr.String())
	}
	if !strings.Contains(read("sudo.out"), "sudo true: exit 1") {
		t.Errorf("the agent's sudo worked:\n%s", read("sudo.out"))
	}
	if _, err := os.Stat("/etc/ralph-ci-sudo-probe"); err == nil {
		os.Remove("/etc/ralph-ci-sudo-probe")
		t.Error("the agent wrote /etc as root")
	}
	for _, name := range []string{"sudo-environ", "sudo-maps", "environ", "maps", "mem", "agent-env"} {
		if got := read(name); strings.Contains(got, secret) {
			t.Errorf("the agent read ralph-ci's secret (%s):\n%.300s", name, got)
		}
	}
	for _, name := range []string{"sudo-maps", "maps", "mem"} {
		if got := read(name); got != "" {
			t.Errorf("the agent read ralph-ci's memory (%s): %d bytes", name, len(got))
		}
	}
}

// sudoUser is a user the test made.
type sudoUser struct {
	name, home string
	uid, gid   int
}

// newUser adds a user named prefix+PID, with passwordless sudo when sudo
// is true, removed (with its sudoers file) when the test ends.
func newUser(t *testing.T, home, prefix string, sudo bool) sudoUser {
	t.Helper()
	name := fmt.Sprintf("%s%d", prefix, os.Getpid()%1000000)
	if out, err := exec.Command("useradd", "--no-create-home", "--home-dir", home, "--shell", "/bin/sh", "--user-group", name).CombinedOutput(); err != nil {
		t.Skipf("useradd: %v: %s", err, out)
	}
	sudoers := "/etc/sudoers.d/" + name
	t.Cleanup(func() {
		os.Remove(sudoers)
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	if sudo {
		if err := os.WriteFile(sudoers, []byte(name+" ALL=(ALL) NOPASSWD: ALL\n"), 0o440); err != nil {
			t.Fatal(err)
		}
	}
	uu, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(uu.Uid)
	gid, _ := strconv.Atoi(uu.Gid)
	u := sudoUser{name: name, home: home, uid: uid, gid: gid}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return u
}

// delegateCgroup makes a cgroup below own and delegates it to u as
// systemd does (the folder, cgroup.procs, cgroup.threads and
// cgroup.subtree_control chowned); it is emptied and removed when the
// test ends.
func delegateCgroup(t *testing.T, own string, u sudoUser) string {
	t.Helper()
	dir := filepath.Join(own, "ralph-ci-test-sudo-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("no writable cgroup here: %v", err)
	}
	t.Cleanup(func() {
		if _, err := box.Remove(dir); err != nil {
			t.Errorf("removing the delegated cgroup: %v", err)
		}
	})
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		if err := os.Chown(filepath.Join(dir, f), u.uid, u.gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asUser is argv run as u, started into the cgroup cgroupFD (-1: this
// process's).
func asUser(u sudoUser, cgroupFD int, dir string, env []string, argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid), Groups: []uint32{}}}
	if cgroupFD >= 0 {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cgroupFD
	}
	return cmd
}

// chownTree gives u everything under p.
func chownTree(t *testing.T, p string, u sudoUser) {
	t.Helper()
	err := filepath.Walk(p, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, u.uid, u.gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyFile copies src to dst with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, raw, mode); err != nil {
		t.Fatal(err)
	}
}
