//go:build linux

package box

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// sudoAgent finds ralph-ci (the shepherd's parent) and tries to read its
// environment and memory, with and without sudo, and to write as root.
const sudoAgent = `cat > /dev/null
` + findRalph + `
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

// userOff keeps the agent as the job's user (box.user off: no run as
// root through sudo), $OUT writable: the box as a user without root has
// it.
const userOff = "box: {user: off, writable: [$OUT]}\n"

// TestAgentSudoGainsNothing: ralph-ci runs as a user that has
// passwordless sudo (as the runner user of GitHub's hosted runners
// does), with box.user off (else it runs itself as root through sudo:
// TestSudoGivesTheAgentAUserOfItsOwn), in a cgroup delegated to that
// user as systemd delegates one. The
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
	r := e2e.NewBoxRun(t, "rcbox", true, sudoAgent, "environment: {remove: [RALPH_TEST_SECRET]}\n"+userOff)
	u, out := r.U, r.Out
	fd := r.Delegate(t)

	// The control: the user's sudo works outside ralph-ci.
	if out, err := e2e.AsUser(u, -1, "", nil, "sudo", "-n", "true").CombinedOutput(); err != nil {
		t.Fatalf("the user's passwordless sudo does not work: %v: %s", err, out)
	}

	env := append(r.Env, "GITHUB_TOKEN=token-"+secret, "RALPH_TEST_SECRET="+secret)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := e2e.AsUser(u, fd, r.Dir, env, r.Bin, "--log-format", "json", "run", "--max-rotations", "1")
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
	if got := strings.TrimSpace(read("uid")); got != strconv.Itoa(u.UID) {
		t.Fatalf("the agent did not run as the user (uid %q):\n%s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"kind":"cgroup"`) {
		t.Errorf("ralph-ci did not box the agent in the delegated cgroup:\n%s", stderr.String())
	}
	if got := strings.TrimSpace(read("ralph-pid")); got != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("the agent took pid %q for ralph-ci's, not %d: its attempts prove nothing", got, cmd.Process.Pid)
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
