//go:build linux

package box

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
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

// boxRunAs runs ralph-ci as a new user (sudo: with passwordless sudo;
// box.user off, so it stays that user, userOff) in
// this test's cgroup, which is root's, so not the user's to write: no
// cgroup is delegated to it. It returns the exit code, the log, $OUT and
// ralph-ci's pid.
func boxRunAs(t *testing.T, prefix string, sudo bool, agent string) (int, string, string, int) {
	t.Helper()
	r := e2e.NewBoxRun(t, prefix, sudo, agent, userOff)
	cmd, log := r.Start(t)
	return r.Wait(t, cmd, log), log.String(), r.Out, cmd.Process.Pid
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

// TestBoxRefusesWithoutSudo: the same user without sudo gets no cgroup:
// asked for one (box.mode cgroup), run refuses, naming the opt-out and
// the ways to get one (root, passwordless sudo). (box.mode auto falls
// back to a PID namespace: TestPIDNSBoxKeepsEscapesFromTheToken.)
func TestBoxRefusesWithoutSudo(t *testing.T) {
	r := e2e.NewBoxRun(t, "rcnos", false, "cat > /dev/null\necho RALPH_STATUS: DONE\n", "box: {mode: cgroup}\n")
	cmd, buf := r.Start(t)
	code, log, pid := r.Wait(t, cmd, buf), buf.String(), cmd.Process.Pid
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

// staleAgent, in the first run, leaves a setsid'd process ($OUT/first
// holds its pid) and hangs; in the next it is done at once.
const staleAgent = `cat > /dev/null
if [ ! -f "$OUT/first" ]; then
  setsid sh -c 'echo $$ > "$OUT/first.tmp"; mv "$OUT/first.tmp" "$OUT/first"; exec sleep 1000' < /dev/null > /dev/null 2>&1 &
  exec sleep 1000
fi
echo work > work.txt
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestBoxSudoStaleDelegationRemoved: a run killed with SIGKILL leaves the
// cgroup it delegated to itself through sudo, with its boxes in it; the
// next run of the user removes them and it (and kills what is left in
// them: the shepherd's PID namespace may have killed the agent already).
func TestBoxSudoStaleDelegationRemoved(t *testing.T) {
	r := e2e.NewBoxRun(t, "rcsta", true, staleAgent, userOff)
	mount, err := box.CgroupMount()
	if err != nil {
		t.Fatal(err)
	}
	cmd, log := r.Start(t)
	first := filepath.Join(r.Out, "first")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(first); err == nil {
			break
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			_ = cmd.Process.Kill()
			r.Wait(t, cmd, log)
			t.Fatalf("the agent did not start:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
	raw, _ := os.ReadFile(first)
	agent := strings.TrimSpace(string(raw))
	deleg := filepath.Join(mount, "ralph-ci-sudo-"+strconv.Itoa(cmd.Process.Pid))
	t.Cleanup(func() {
		if _, err := os.Stat(deleg); err == nil {
			_, _ = box.Remove(deleg)
		}
	})
	_ = cmd.Process.Kill()
	r.Wait(t, cmd, log)
	if _, err := os.Stat(deleg); err != nil {
		t.Fatalf("the killed run left no delegated cgroup %s (%v): nothing to sweep:\n%s", deleg, err, log)
	}
	if subs, _ := filepath.Glob(filepath.Join(deleg, "ralph-ci-*")); len(subs) == 0 {
		t.Fatalf("the killed run left no boxes in %s: nothing to sweep", deleg)
	}

	next, log2 := r.Start(t)
	if code := r.Wait(t, next, log2); code != 0 {
		t.Errorf("the next run: exit %d, want 0:\n%s", code, log2)
	}
	if _, err := os.Stat(deleg); err == nil {
		t.Errorf("the next run left the stale delegated cgroup %s", deleg)
		_, _ = box.Remove(deleg)
	}
	if _, err := os.Stat("/proc/" + agent); err == nil {
		n, _ := strconv.Atoi(agent)
		_ = syscallKill(n)
		t.Errorf("the killed run's agent %s still runs", agent)
	}
	if left := leftCgroups(t, next.Process.Pid); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
}
