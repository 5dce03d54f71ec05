package box

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// This test binary links internal/shepherd, so started as
// shepherd.Name it is a shepherd: the boxes below start the real one.

// pidnsOrSkip opens PID-namespace boxes, or skips where the kernel
// gives none.
func pidnsOrSkip(t *testing.T) *Boxes {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(PIDNS, exe)
	if err != nil {
		t.Skip(err)
	}
	return b
}

// startShepherd starts sh -c script under a shepherd in a new box of b,
// as pipeline/agent starts an agent (its own process group, SIGTERM when
// this process dies).
func startShepherd(t *testing.T, b *Boxes, script string, env ...string) (*exec.Cmd, *Box) {
	t.Helper()
	exe, _ := os.Executable()
	x, err := b.New()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: exe, Args: shepherd.Args(time.Second, nil, []string{"/bin/sh", "-c", script})}
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := x.Prepare(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		_, _ = x.Empty(0)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the shepherd's output:\n%s", out.String())
		}
	})
	return cmd, x
}

// nsMembers lists, from this process's /proc, the processes whose PID
// namespace is ns (a /proc/PID/ns/pid link), each with its start time.
func nsMembers(ns string) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, _ := os.Readlink("/proc/" + e.Name() + "/ns/pid"); l == ns {
			out[pid] = startTime(pid)
		}
	}
	return out
}

// startTime is field 22 of /proc/PID/stat ("" once pid is gone): a pid
// reused by another process has another.
func startTime(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// waitFile waits until the file f exists (60 s at most, a guard against
// a hang).
func waitFile(t *testing.T, f string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(f); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ls, _ := exec.Command("ls", "-la", filepath.Dir(f)).CombinedOutput()
			t.Fatalf("%s did not appear:\n%s", f, ls)
		}
	}
}

// hardToKill fills the namespace: eight setsid'd processes that ignore
// SIGTERM and SIGHUP, two fork-chasing chains (each link starts the next
// and exits), and a process holding 64 MiB, whose exit takes the kernel
// a while; then it writes $F and waits.
const hardToKill = `for i in 1 2 3 4 5 6 7 8; do
  setsid sh -c 'trap "" TERM HUP; while :; do sleep 1; done' < /dev/null > /dev/null 2>&1 &
done
printf '%s\n' 'echo >> "$F.chain"' 'sh "$F.sh" < /dev/null > /dev/null 2>&1 &' > "$F.sh"
for i in 1 2; do setsid sh "$F.sh" < /dev/null > /dev/null 2>&1 & done
setsid sh -c 'x=$(head -c 67108864 /dev/zero | tr "\0" x); trap "" TERM; echo >> "$F.big"; while :; do sleep 1; done' < /dev/null > /dev/null 2>&1 &
until [ -s "$F.big" ] && [ -f "$F.chain" ] && [ "$(wc -l < "$F.chain")" -gt 20 ]; do sleep 0.01; done
echo > "$F"
exec sleep 1000
`

// The claim the box rests on, against the kernel's zap_pid_ns_processes
// (kernel/pid_namespace.c): when the first process of a PID namespace
// exits, the kernel sends SIGKILL to every process of the namespace,
// reaps its own children, and waits until the namespace holds no other
// pid before the exit goes on to notify the parent (exit_notify follows
// forget_original_parent). So the moment the parent's wait for it
// returns, the namespace is empty. The test makes that wait the only
// thing it relies on: the shepherd is killed with SIGKILL from outside
// (it can do nothing), and right after the wait, no process of the
// namespace is left, those that ignore SIGTERM, fork-chasing chains and
// a process with 64 MiB to free included. Several runs, with the
// namespace made directly and through a user namespace.
func TestPIDNSWaitForFirstProcessMeansEmpty(t *testing.T) {
	b := pidnsOrSkip(t)
	for _, userns := range []bool{false, true} {
		if userns == b.UserNS() || os.Geteuid() == 0 { // root may make both kinds
			for run := 1; run <= 3; run++ {
				t.Run("userns="+strconv.FormatBool(userns)+"/"+strconv.Itoa(run), func(t *testing.T) {
					bb := &Boxes{kind: PIDNS, ns: &pidnsRun{userns: userns, uid: os.Geteuid(), gid: os.Getegid()}}
					f := filepath.Join(t.TempDir(), "ready")
					cmd, x := startShepherd(t, bb, hardToKill, "F="+f)
					waitFile(t, f)
					ns, err := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/pid")
					if err != nil {
						t.Fatal(err)
					}
					before := nsMembers(ns) // the shepherd's children: its own pid namespace's link is its parent's
					for pid := range before {
						defer syscall.Kill(pid, syscall.SIGKILL) // a guard, should the claim fail
					}
					if len(before) < 11 {
						t.Fatalf("only %d processes in the namespace", len(before))
					}
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					if left := nsMembers(ns); len(left) > 0 {
						t.Errorf("processes of the namespace left once the wait returned: %v", left)
					}
					for pid, start := range before {
						if s := startTime(pid); s != "" && s == start {
							t.Errorf("process %d (of %d) outlived the wait", pid, len(before))
						}
					}
					if killed, err := x.Empty(cmd.Process.Pid); err != nil || len(killed) > 0 {
						t.Errorf("Empty = %v, %v; want nothing (the shepherd, killed, reported nothing)", killed, err)
					}
				})
			}
		}
	}
}

// A command that leaves processes behind: when it ends, the shepherd
// kills them, Empty names them (PIDs of the namespace) and the
// shepherd's exit status is the command's. Inside, the command's parent
// is PID 1, it sees only its namespace, and kill -9 of its shepherd (PID 1) does
// nothing.
func TestPIDNSEmptyNamesWhatOutlivedTheCommand(t *testing.T) {
	b := pidnsOrSkip(t)
	dir := t.TempDir()
	script := `echo $PPID > "$D/parent"; ls /proc | grep -c '^[0-9]' > "$D/count"
kill -9 1; echo $? > "$D/kill"
setsid sh -c 'echo $$ > "$D/survivor"; exec sleep 1000' < /dev/null > /dev/null 2>&1 &
until [ -s "$D/survivor" ]; do sleep 0.01; done
exit 3`
	cmd, x := startShepherd(t, b, script, "D="+dir)
	err := cmd.Wait()
	killed, eerr := x.Empty(cmd.Process.Pid)
	if eerr != nil {
		t.Fatal(eerr)
	}
	read := func(n string) string {
		raw, _ := os.ReadFile(filepath.Join(dir, n))
		return strings.TrimSpace(string(raw))
	}
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("the shepherd exited %d (%v), want the command's 3", code, err)
	}
	if got := read("parent"); got != "1" {
		t.Errorf("the command's parent is PID %q in its namespace, want the shepherd, 1", got)
	}
	if got, _ := strconv.Atoi(read("count")); got < 2 || got > 6 {
		t.Errorf("the command sees %d processes in /proc, want its namespace's few", got)
	}
	survivor, _ := strconv.Atoi(read("survivor"))
	found := false
	for _, p := range killed {
		found = found || (p.PID == survivor && p.Comm == "sleep")
	}
	if !found {
		t.Errorf("Empty named %v, not the survivor %d (sleep)", killed, survivor)
	}
}
