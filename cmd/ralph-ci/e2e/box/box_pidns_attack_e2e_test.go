//go:build linux

package box

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// The red team's attacks on the PID-namespace box a non-root ralph-ci
// falls back to (no writable cgroup, no sudo): a PID namespace per
// process, made in a user namespace that maps only ralph-ci's uid, so
// that every boxed process is ralph-ci's own user. The attacks go beyond
// TestPIDNSBoxKeepsEscapesFromTheToken's escapes: they know ralph-ci's
// pid and that of a process of the same user outside the box holding
// the token in its environment (a stand-in for ralph-ci's git push, a
// process no kernel rule but the namespace keeps from its user), and try
// every way at them and at the box's first process.

// attackSh is the battery, run by the agent or by a test of the
// verification command once $OUT/rpid names ralph-ci's pid and
// $OUT/gpid the stand-in's. A way that works writes a line holding
// "GOT THROUGH" to $OUT/got; each refusal a line to $OUT/log.
const attackSh = `until [ -s "$OUT/rpid" ] && [ -s "$OUT/gpid" ]; do sleep 0.01; done
R=$(cat "$OUT/rpid") G=$(cat "$OUT/gpid")
got() { echo "$1: GOT THROUGH: $2" | head -c 300 >> "$OUT/got"; echo >> "$OUT/got"; }
no() { echo "$1: refused" >> "$OUT/log"; }
for p in $R $G; do
  [ -e /proc/$p ] && got "see pid $p in /proc" "$(cat /proc/$p/cmdline | tr '\0' ' ')"
  for f in environ maps cmdline; do
    if x=$(head -c 2000 /proc/$p/$f 2>/dev/null) && [ -n "$x" ]; then got "read /proc/$p/$f" "$x"; else no "read /proc/$p/$f"; fi
  done
  if dd if=/proc/$p/mem bs=16 count=1 skip=262144 2>/dev/null | grep -q .; then got "read /proc/$p/mem" ""; else no "read /proc/$p/mem"; fi
  if python3 "$OUT/ptrace.py" $p >> "$OUT/log" 2>&1; then got "ptrace $p" ""; else no "ptrace $p"; fi
  if nsenter -t $p -U -p -m --preserve-credentials true 2>/dev/null; then got "nsenter -t $p" ""; else no "nsenter -t $p"; fi
  for s in USR1 TERM; do if kill -$s $p 2>/dev/null; then got "kill -$s $p" ""; else no "kill -$s $p"; fi; done
  if kill -TERM -- -$p 2>/dev/null; then got "kill -TERM -$p (its group)" ""; else no "kill its group"; fi
done
for m in $(grep ' - proc ' /proc/self/mountinfo | cut -d' ' -f5); do
  for p in $R $G; do [ -e "$m/$p" ] && got "see $p in the /proc at $m" ""; done
done
python3 "$OUT/setns.py" > "$OUT/setns.out" 2>&1; cat "$OUT/setns.out" >> "$OUT/log"; if grep -q joined "$OUT/setns.out"; then got "join a namespace outside" ""; else no "setns"; fi
if unshare -Urm sh -c "umount -l /proc && ls /proc/$G" >/dev/null 2>&1; then got "umount the box's /proc" ""; else no "umount /proc"; fi
if unshare -Urm sh -c 'mkdir -p "$TMPDIR/p" && mount -t proc proc "$TMPDIR/p" && ls "$TMPDIR/p/'$G'"' >/dev/null 2>&1; then got "mount a /proc" ""; else no "mount a /proc"; fi
if unshare -Urpf --mount-proc sh -c "ls /proc/$G" >/dev/null 2>&1; then got "see $G from a nested namespace" ""; else no "nested"; fi
for f in environ maps; do
  if x=$(head -c 200 /proc/1/$f 2>/dev/null) && [ -n "$x" ]; then got "read the shepherd's /proc/1/$f" "$x"; else no "read /proc/1/$f"; fi
done
if python3 "$OUT/ptrace.py" 1 >> "$OUT/log" 2>&1; then got "ptrace the shepherd" ""; else no "ptrace 1"; fi
if (echo "$R forged" > /proc/1/fd/3) 2>/dev/null; then got "write the shepherd's report" ""; else no "forge the report"; fi
if ls /proc/1/root/ >/dev/null 2>&1; then got "enter the shepherd's root" ""; else no "/proc/1/root"; fi
grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status || got "no no_new_privs" "$(grep NoNewPrivs /proc/self/status)"
grep -q '^CapEff:[[:space:]]*0000000000000000' /proc/self/status || got "a capability" "$(grep Cap /proc/self/status)"
for d in "$GITDIR" "$GITDIR"/*; do
  if (echo 0000000000000000000000000000000000000000 > "$d/MERGE_HEAD") 2>/dev/null; then got "write $d/MERGE_HEAD" ""; else no "write $d/MERGE_HEAD"; fi
done
if (echo "pwned=1" >> "$JOBOUT") 2>/dev/null; then got "write the job's GITHUB_OUTPUT" ""; else no "GITHUB_OUTPUT"; fi
if cp /bin/true "$RALPHBIN.new" 2>/dev/null && mv -f "$RALPHBIN.new" "$RALPHBIN" 2>/dev/null; then got "replace the ralph-ci binary" ""; else no "replace ralph-ci"; fi
echo "battery done" >> "$OUT/log"
`

// ptracePy seizes the process of its argument (PTRACE_SEIZE): exit 0
// when the kernel lets it.
const ptracePy = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
pid = int(sys.argv[1])
if libc.ptrace(0x4206, pid, None, None) == 0:
    print("seized", pid)
    sys.exit(0)
print("ptrace", pid, os.strerror(ctypes.get_errno()))
sys.exit(1)
`

// setnsPy asks the kernel for the parent and the owner of each
// namespace the box's processes are in (NS_GET_PARENT, NS_GET_USERNS)
// and tries to join what it gets: exit 0 when one setns works.
const setnsPy = `import ctypes, fcntl, os, sys
libc = ctypes.CDLL(None, use_errno=True)
joined = False
for kind in ["user", "pid", "mnt", "net", "uts", "ipc", "cgroup", "time"]:
    for src in ["/proc/self/ns/" + kind, "/proc/1/ns/" + kind]:
        try:
            fd = os.open(src, os.O_RDONLY)
        except OSError as e:
            print(src, e)
            continue
        for req, name in [(0xb702, "parent"), (0xb701, "owner")]:
            try:
                ns = fcntl.ioctl(fd, req)
            except OSError as e:
                print(src, name, e)
                continue
            if libc.setns(ns, 0) == 0:
                print("joined the", name, "of", src)
                joined = True
            else:
                print(src, name, "setns:", os.strerror(ctypes.get_errno()))
sys.exit(0 if joined else 1)
`

// nsAttack is a run of ralph-ci as the user of n, in the PID-namespace
// box, whose agent (where "agent") or verification's test (where
// "verify") runs $OUT/escape.sh, delivering to an HTTP origin that asks
// for the token.
type nsAttack struct {
	w              *e2e.CIWorld
	out            string
	stdout, stderr string
	code           int
	log, got       string
	left           []int // the attack's processes alive after the run
}

// runNSAttack runs it, with scripts written into $OUT, ralph-ci's pid
// in $OUT/rpid once it started, and the pid of a process of the user's
// outside the box holding the token in its environment in $OUT/gpid.
func runNSAttack(t *testing.T, n *nsUser, where string, scripts, files map[string]string, args ...string) nsAttack {
	t.Helper()
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:test-token"))
	out := agentDir(t)
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := e2e.NewCIWorld(t, n.bin, files, e2e.HTTPOrigin)
	w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "WHERE="+where, "HEADER_A="+header[:10], "HEADER_B="+header[10:],
		"HOME="+n.u.Home, "TMPDIR="+n.tmp, "RALPHBIN="+n.bin, "GITDIR=/var/tmp/ralph-ci-"+strconv.Itoa(n.u.UID))
	w.Job("", "")
	w.ExtraEnv = append(w.ExtraEnv, "WORK="+w.Dir, "JOBOUT="+w.Output)
	n.own(t, w, out)
	e2e.ChownTree(t, filepath.Dir(n.bin), n.u) // a self-hosted runner's tool folder is its user's

	// The stand-in for ralph-ci's git push: the user's, outside the box,
	// the token in its environment, readable by its user.
	gctx, gstop := context.WithCancel(context.Background())
	git := exec.CommandContext(gctx, "/bin/sleep", "600")
	git.Env = []string{"GIT_CONFIG_VALUE_2=AUTHORIZATION: basic " + header, "WORK=" + w.Dir}
	git.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(n.u.UID), Gid: uint32(n.u.Gid), Groups: []uint32{}}}
	if err := git.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { gstop(); _ = git.Wait() }()

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, stdout, stderr := w.Command(ctx, append([]string{"--log-format", "json", "run", "--deliver", "pr"}, args...)...)
	cmd.Env = tokenInFile(t, cmd.Env)
	for _, kv := range cmd.Env {
		if f, ok := strings.CutPrefix(kv, "RALPH_TOKEN_FILE="); ok {
			e2e.ChownTree(t, filepath.Dir(f), n.u)
			_ = os.Chmod(filepath.Dir(filepath.Dir(f)), 0o755)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(n.u.UID), Gid: uint32(n.u.Gid), Groups: []uint32{}}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for name, pid := range map[string]int{"rpid": cmd.Process.Pid, "gpid": git.Process.Pid} {
		tmp := filepath.Join(out, "."+name)
		if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	_ = cmd.Wait()
	left := processesNaming(out)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	log, _ := os.ReadFile(filepath.Join(out, "log"))
	got, _ := os.ReadFile(filepath.Join(out, "got"))
	a := nsAttack{w: w, out: out, stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode(), log: string(log), got: string(got), left: left}
	t.Logf("exit %d; the attack said:\n%s\ngot: %q", a.code, log, got)
	if !strings.Contains(a.stderr, `"kind":"pidns"`) || !strings.Contains(a.stderr, `"user_namespace":true`) {
		t.Fatalf("the run was not boxed in a PID namespace made in a user namespace:\n%s\n%s", a.stdout, a.stderr)
	}
	if err := git.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the stand-in outside the box was killed: %v", err)
	}
	return a
}

// TestPIDNSBoxHoldsTheRedTeamsBattery: from the agent and from a test
// of the verification command, two runs each, every way of the battery
// (attackSh) at ralph-ci, at a process of the same user outside the box
// and at the box's first process is refused: no process outside is
// seen, read, traced, entered or signalled; no namespace outside is
// joined, no /proc of it mounted or uncovered; the box's processes have
// no capability and no_new_privs; ralph-ci's git folder, the job's
// output file and the ralph-ci binary stay unwritten. The run still ends
// verified, its work pushed.
func TestPIDNSBoxHoldsTheRedTeamsBattery(t *testing.T) {
	n := newNSUser(t, "rcrtb")
	for _, where := range []string{"agent", "verify"} {
		for run := 1; run <= 2; run++ {
			t.Run(where+"/"+strconv.Itoa(run), func(t *testing.T) {
				bin, err := os.ReadFile(n.bin)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(bin)
				a := runNSAttack(t, n, where, map[string]string{"escape.sh": attackSh, "ptrace.py": ptracePy, "setns.py": setnsPy},
					escapeFiles(), "--max-rotations", "3")
				if !strings.Contains(a.log, "battery done") {
					t.Fatalf("the battery did not run to its end:\n%s\n%s", a.stdout, a.stderr)
				}
				if a.got != "" {
					t.Errorf("ways of the battery got through:\n%s", a.got)
				}
				if a.code != 0 {
					t.Errorf("exit %d, want 0:\n%s\n%s", a.code, a.stdout, a.stderr)
				}
				if now, _ := os.ReadFile(n.bin); sha256.Sum256(now) != sum {
					t.Errorf("the ralph-ci binary was replaced")
				}
				if raw, _ := os.ReadFile(a.w.Output); bytes.Contains(raw, []byte("pwned")) {
					t.Errorf("the agent wrote the job's output file:\n%s", raw)
				}
				if committed := ghorigin.Git(t, a.w.Bare, "show", "refs/heads/changes:work.txt"); strings.TrimSpace(committed) != "finished" {
					t.Errorf("the pushed work.txt is %q", committed)
				}
			})
		}
	}
}

// TestPIDNSBoxSurvivorsWriteAfterVerificationIsNotCommitted is
// TestSurvivorsWriteAfterVerificationIsNotCommitted in the non-root
// PID-namespace box: the survivor that waits for the third verification
// to rewrite the verified file dies with its rotation, and the work
// pushed is the verified one. Two runs.
func TestPIDNSBoxSurvivorsWriteAfterVerificationIsNotCommitted(t *testing.T) {
	n := newNSUser(t, "rcrts")
	for run := 1; run <= 2; run++ {
		t.Run(strconv.Itoa(run), func(t *testing.T) {
			escape := `setsid sh "$OUT/tamper.sh" < /dev/null > /dev/null 2>&1 &
` + waitSteal + killShepherdNS
			files := escapeFiles()
			files["check.sh"] = "grep -q finished work.txt && echo >> \"$OUT/verified\"\n"
			a := runNSAttack(t, n, "agent", map[string]string{"escape.sh": escape, "tamper.sh": tamperSh}, files, "--max-rotations", "4")
			verified, _ := os.ReadFile(filepath.Join(a.out, "verified"))
			if !strings.Contains(a.log, "killed shepherd") || strings.Count(string(verified), "\n") < 3 {
				t.Fatalf("the attack did not run, or fewer than 3 verifications:\n%s\n%s", a.stdout, a.stderr)
			}
			if len(a.left) > 0 {
				t.Errorf("processes of the attack outlived the run: %v", a.left)
			}
			if strings.Contains(a.log, "writing after verification") {
				t.Errorf("the survivor outlived its rotation:\n%s", a.log)
			}
			if committed := ghorigin.Git(t, a.w.Bare, "show", "refs/heads/changes:work.txt"); strings.TrimSpace(committed) != "finished" {
				t.Errorf("the pushed work.txt is %q, not the verified %q", committed, "finished")
			}
			if !strings.Contains(a.stderr, "box: killed the processes that outlived their command") {
				t.Errorf("the log names no process the box killed:\n%s", a.stderr)
			}
		})
	}
}

// TestPIDNSBoxShepherdDiesOfASignal: the box's first process, the
// shepherd, is its user's, and Go's runtime handles every signal, so a
// signal from inside the namespace reaches it (the kernel drops only
// those whose action is the default there); SIGQUIT, SIGABRT, and a
// SIGSEGV or SIGTRAP sent by kill or by sigqueue (which Go's runtime
// takes for a fault of its own) made Go's runtime end it at once, and
// the box's kills went unlogged. The agent leaves a stealer behind and
// sends one of them to PID 1, two runs of each: the kernel empties the
// namespace (nothing outlives the run, the token is never seen), and the
// log names the stealer the box killed.
func TestPIDNSBoxShepherdDiesOfASignal(t *testing.T) {
	n := newNSUser(t, "rcrtq")
	sigqueue := `python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).sigqueue(1, int(sys.argv[1]), ctypes.c_void_p(0)))' `
	for _, s := range []struct{ name, send string }{
		{"kill -QUIT", "kill -QUIT 1"},
		{"kill -ABRT", "kill -ABRT 1"},
		{"kill -SEGV", "kill -SEGV 1"},
		{"sigqueue SEGV", sigqueue + "11"},
		{"sigqueue TRAP", sigqueue + "5"},
	} {
		for run := 1; run <= 2; run++ {
			t.Run(s.name+"/"+strconv.Itoa(run), func(t *testing.T) {
				escape := `setsid sh "$OUT/steal.sh" < /dev/null > /dev/null 2>&1 &
` + waitSteal + s.send + `; echo "signalled the shepherd: $?" >> "$OUT/log"
sleep 1
`
				a := runNSAttack(t, n, "agent", map[string]string{"escape.sh": escape, "steal.sh": stealSh, "look.sh": lookSh},
					escapeFiles(), "--max-rotations", "3")
				if !strings.Contains(a.log, "signalled the shepherd: 0") {
					t.Fatalf("the attack did not run:\n%s\n%s", a.stdout, a.stderr)
				}
				if stolen, _ := os.ReadFile(filepath.Join(a.out, "stolen")); len(stolen) > 0 {
					t.Errorf("the stealer read the token:\n%s", stolen)
				}
				if len(a.left) > 0 {
					t.Errorf("processes of the attack outlived the run: %v", a.left)
				}
				if a.code != 0 {
					t.Errorf("exit %d, want 0 (the shepherd died with its rotation):\n%s\n%s", a.code, a.stdout, a.stderr)
				}
				pids, _ := os.ReadFile(filepath.Join(a.out, "pids"))
				for _, pid := range strings.Fields(string(pids)) {
					if !strings.Contains(a.stderr, `"killed":"`+pid+" (") && !strings.Contains(a.stderr, ", "+pid+" (") {
						t.Errorf("the log does not name the stealer %s the box killed:\n%s", pid, a.stderr)
					}
				}
			})
		}
	}
}
