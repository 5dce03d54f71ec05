package delivery

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/schema"
)

const crashPlan = `specs/a.spec.md echo a1 > a.txt; status CONTINUE
specs/a.spec.md echo a2 > a.txt; promise; status DONE
specs/a.spec.md promise; status DONE
specs/b.spec.md status ROTATE
specs/b.spec.md echo b > b.txt; promise; status DONE
specs/b.spec.md promise; status DONE
specs/c.spec.md promise; status DONE
specs/a.spec.md promise; status DONE
specs/c.spec.md promise; status DONE
specs/b.spec.md promise; status DONE
specs/c.spec.md promise; status DONE
`

// crashAgent is planAgent with one addition: at iteration $CRASH_AT (once)
// it does the line's work, then kills ralph-ci with SIGKILL mid-rotation.
const crashAgent = `prompt=$(cat)
line=$(sed -n "${RALPH_ITERATION}p" plan.txt)
echo "$RALPH_ITERATION $RALPH_SPEC ${line%% *}" >> .ralph/calls.log
promise() { printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'; printf '%s\n' "$prompt" | grep -o '^<promise>.*</promise>$' | head -n 1; }
status() { echo "RALPH_STATUS: $1"; }
if [ "$RALPH_ITERATION" = "${CRASH_AT:-}" ] && [ ! -f .ralph/crashed ]; then
	touch .ralph/crashed
	eval "${line#* }" >/dev/null
	kill -9 $(awk '{print $4}' /proc/$PPID/stat) # ralph-ci: the parent of its shepherd
	exit 0
fi
eval "${line#* }"
`

func crashRepo(t *testing.T) string {
	t.Helper()
	return e2e.WriteRepoAt(t, t.TempDir(), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, crash-agent.sh], timeout: 1m}\nstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
			"box: {user: off}\n", // the agent kills ralph-ci, which only ralph-ci's own user may
		"specs/a.spec.md": "# A\n", "specs/b.spec.md": "# B\n", "specs/c.spec.md": "# C\n",
		"plan.txt": crashPlan, "crash-agent.sh": crashAgent, ".gitignore": ".ralph/\n",
	})
}

// runToEnd starts ralph-ci run until it exits 0, at most tries times.
func runToEnd(t *testing.T, bin, dir string, env []string, tries int) {
	t.Helper()
	for i := 0; i < tries; i++ {
		cmd := exec.Command(bin, "run")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil {
			return
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 { // only SIGKILL is expected
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
	}
	t.Fatalf("no completion after %d runs", tries)
}

// waitAgentsGone checks that no agent is left running once a run ended:
// the kernel kills an agent whose ralph-ci died (asynchronously, hence
// the short wait).
func waitAgentsGone(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("pgrep", "-f", "crash-agent.sh").Run() != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("an agent is still running")
}

func TestCrashAnywhereResumesToTheSameState(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	if _, err := exec.LookPath("pgrep"); err != nil {
		t.Skip("needs pgrep")
	}
	bin := e2e.RalphBinary(t)
	ref := crashRepo(t)
	runToEnd(t, bin, ref, nil, 1)
	want := e2e.ReadState(t, ref)
	if !strings.Contains(want, `"iteration": 11`) {
		t.Fatalf("reference run:\n%s", want)
	}
	// The state file is versioned and follows its schema (#State).
	if err := schema.ValidateJSON("#State", "state.json", []byte(want)); err != nil {
		t.Fatalf("state.json does not follow #State: %v", err)
	}

	// Killed inside every rotation, after the agent changed files.
	for at := 1; at <= 11; at++ {
		t.Run(fmt.Sprintf("kill during rotation %d", at), func(t *testing.T) {
			dir := crashRepo(t)
			runToEnd(t, bin, dir, []string{fmt.Sprintf("CRASH_AT=%d", at)}, 2)
			if _, err := os.Stat(filepath.Join(dir, ".ralph", "crashed")); err != nil {
				t.Fatal("the agent did not crash the run")
			}
			if got := e2e.ReadState(t, dir); got != want {
				t.Errorf("state after the crash:\n%s\nwant:\n%s", got, want)
			}
		})
	}

	// Killed from outside at arbitrary moments (between rotations, during
	// git, during the state write): whatever the moment, the end state is
	// the same. The delays only spread the kills; no assertion depends on
	// where they land.
	for _, delays := range [][]time.Duration{{5, 15, 25}, {2, 8, 40, 60}, {30, 1, 1, 12}} {
		t.Run(fmt.Sprintf("kills after %v ms", delays), func(t *testing.T) {
			dir := crashRepo(t)
			for _, d := range delays {
				cmd := exec.Command(bin, "run")
				cmd.Dir = dir
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(d * time.Millisecond)
				_ = cmd.Process.Signal(syscall.SIGKILL)
				_ = cmd.Wait()
				// No waiting for the agent: the next run must cope with
				// whatever the killed one left running.
			}
			runToEnd(t, bin, dir, nil, 1)
			waitAgentsGone(t, dir)
			if got := e2e.ReadState(t, dir); got != want {
				calls, _ := os.ReadFile(filepath.Join(dir, ".ralph", "calls.log"))
				t.Errorf("state after kills:\n%s\nwant:\n%s\ncalls (iteration, spec, planned spec):\n%s", got, want, calls)
			}
		})
	}
}

// Ctrl-C (SIGINT) and SIGTERM stop the agent's whole process group, keep
// the interrupted rotation for the next run, release the lock and exit
// 128+signal.
func TestSignalsStopTheAgentAndExit128PlusSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) { interruptRun(t, bin, tc.sig, tc.code) })
	}
}

func interruptRun(t *testing.T, bin string, sig syscall.Signal, code int) {
	dir := crashRepo(t)
	marker := fmt.Sprintf("sleep 30%d", code) // unique: tells this agent's child apart
	slow := "touch .ralph/started; " + marker + " & wait\n"
	if err := os.WriteFile(filepath.Join(dir, "crash-agent.sh"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, ".ralph", "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(sig)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != code {
		t.Fatalf("exit: %v, want %d\n%s", err, code, stderr.String())
	}
	if exec.Command("pgrep", "-f", marker).Run() == nil {
		t.Error("the agent's child survived")
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".ralph", "state.json")); err != nil || !strings.Contains(string(b), `"pending"`) {
		t.Errorf("the interrupted rotation was not kept for the next run: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ralph", "run.json")); err == nil {
		t.Error("the lock was not released")
	}
}
