//go:build linux

package box

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/agentuser"
)

// peerAttack is the agent of one of two root runs at once ($ME, the
// other is $OTHER; $XCHG is a folder both may write). It keeps a secret
// in its work tree, HOME and scratch, tells the other where they are,
// waits for the other's and for the other's PID (as the machine sees it:
// $XCHG/$OTHER.pid, which the test writes), then tries, one line each in
// $XCHG/$ME-attempts, to read and write the other's tree, HOME and
// scratch, to signal the other's agent (kill -0: the permission check
// alone) and to read its /proc/PID/environ. It waits until the other
// has tried too (so both are alive meanwhile), does the work and claims
// DONE.
const peerAttack = `cat > /dev/null
if [ "$RALPH_ITERATION" = 1 ]; then
  log="$XCHG/$ME-attempts"
  try() { n=$1; shift; if "$@" > "$XCHG/$ME-got-$n" 2> "$XCHG/$ME-err-$n"; then echo "SUCCEEDED $n" >> "$log"; else echo "denied $n: $(head -n 1 "$XCHG/$ME-err-$n")" >> "$log"; fi; }
  await() { i=0; until [ -f "$1" ]; do i=$((i+1)); [ $i -lt 6000 ] || { echo "no $1" >> "$log"; exit 1; }; sleep 0.05; done; }
  echo "secret-of-$ME" > tree-secret && echo "secret-of-$ME" > "$HOME/home-secret" && echo "secret-of-$ME" > "$TMPDIR/scratch-secret"
  printf '%s\n%s\n%s\n%s\n%s\n' "$PWD" "$HOME" "$TMPDIR" "$$" "$(id -u)" > "$XCHG/$ME.tmp" && mv "$XCHG/$ME.tmp" "$XCHG/$ME"
  await "$XCHG/$OTHER"
  { read -r T; read -r H; read -r S; } < "$XCHG/$OTHER"
  await "$XCHG/$OTHER.pid"
  read -r P < "$XCHG/$OTHER.pid"
  try tree-read cat "$T/tree-secret"
  try tree-list ls "$T"
  try tree-write touch "$T/planted-by-$ME"
  try home-read cat "$H/home-secret"
  try home-write touch "$H/planted-by-$ME"
  try scratch-read cat "$S/scratch-secret"
  try scratch-write touch "$S/planted-by-$ME"
  try signal kill -0 "$P"
  try environ cat "/proc/$P/environ"
  echo tried > "$XCHG/$ME.tried"
  await "$XCHG/$OTHER.tried"
  rm -f tree-secret
  echo finished > work.txt
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// peerAttempts are the attempts of peerAttack.
var peerAttempts = []string{"tree-read", "tree-list", "tree-write", "home-read", "home-write", "scratch-read", "scratch-write", "signal", "environ"}

// peerRepo is a repository whose agent is script and whose one spec is
// verified by work.txt saying finished, with box settings box.
func peerRepo(t *testing.T, dir, script, box string) string {
	return e2e.WriteRepoAt(t, dir, map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 2m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
			"box: {" + box + "}\n",
		"specs/a.spec.md": "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
			"  coder:\n    promise: IMPLEMENTATION_COMPLETE\n    description: finished\n    verification_method: external\n" +
			"    verification_config: {command: grep -q finished work.txt, timeout: 60}\n---\n# A\n",
		"agent.sh":   script,
		".gitignore": ".ralph/\n",
	})
}

// Two root runs at once, each agent as the user of its own the pool
// gives it, with no PID namespace and no Landlock (box mode off,
// landlock off: the uid alone holds): each agent tries to read and write
// the other's work tree, HOME and scratch, to signal the other's agent
// and to read its /proc/PID/environ, and every attempt fails by uid;
// both loops end verified; the search-only ACL entries the runs added
// (on the test's 0700 folder above both trees) are gone after them. In
// the default box too (a PID namespace here, where the other's agent is
// not even seen, or a cgroup). The control is one user named in both
// configs (box.user NAME, shared by choice): then every attempt gets
// through.
func TestAgentUsersOfRunsAtOnceAreApart(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ralph-ci as root only")
	}
	bin := e2e.RalphBinary(t)
	removeNewPoolUsers(t)
	for _, c := range []struct{ name, user, box string }{
		{"pool", "auto", "mode: off, landlock: off"},
		{"pool in the default box", "auto", "mode: auto"},
		{"one named user", "ralph-ci-test-shared", "mode: off, landlock: off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.user != "auto" {
				makeUser(t, c.user)
			}
			base := t.TempDir() // 0700, root's: each agent's user gets a search-only entry on it
			work := filepath.Join(base, "work")
			if err := os.Mkdir(work, 0o755); err != nil { // as a runner's _work: anyone may enter
				t.Fatal(err)
			}
			xchg := agentDir(t)
			box := c.box + ", user: " + c.user
			if c.box == "mode: auto" {
				box += ", writable: [" + e2e.RecordsRoot + "]"
			}
			trees := map[string]string{"a": peerRepo(t, filepath.Join(work, "a"), peerAttack, box), "b": peerRepo(t, filepath.Join(work, "b"), peerAttack, box)}
			type result struct {
				code           int
				stdout, stderr []byte
			}
			results := map[string]result{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			stop := make(chan struct{})
			go tellPIDs(t, xchg, stop)
			for me, other := range map[string]string{"a": "b", "b": "a"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					env := append(os.Environ(), "ME="+me, "OTHER="+other, "XCHG="+xchg)
					code, stdout, stderr := e2e.RunRalphArgs(t, bin, trees[me], env, 2*time.Minute, "--log-format", "json", "run", "--max-rotations", "5")
					mu.Lock()
					results[me] = result{code, stdout, stderr}
					mu.Unlock()
				}()
			}
			wg.Wait()
			close(stop)
			read := func(name string) string { b, _ := os.ReadFile(filepath.Join(xchg, name)); return string(b) }
			uids := map[int]string{}
			for _, me := range []string{"a", "b"} {
				r := results[me]
				name, uid := e2e.AgentUserOf(r.stderr)
				t.Logf("run %s: exit %d as %s (uid %d); its attempts:\n%s", me, r.code, name, uid, read(me+"-attempts"))
				if r.code != 0 || !bytes.Contains(r.stderr, []byte("all specs verified")) {
					t.Errorf("run %s did not end verified (exit %d):\n%s\n%s", me, r.code, r.stdout, r.stderr)
				}
				if c.user == "auto" && !agentuser.InPool(name) {
					t.Errorf("run %s ran its agent as %q, not a user of the pool", me, name)
				}
				uids[uid] = name
			}
			for _, dir := range []string{filepath.Dir(base), base, work, trees["a"], trees["b"]} {
				if n, err := unix.Getxattr(dir, "system.posix_acl_access", make([]byte, 256)); !errors.Is(err, unix.ENODATA) {
					t.Errorf("%s keeps an ACL after the runs (%d bytes, %v)", dir, n, err)
				}
			}
			for _, tree := range trees {
				if fi, err := os.Stat(tree); err != nil || fi.Mode().Perm() != 0o755 {
					t.Errorf("the work tree %s is %v after the run, not 0755 again (%v)", tree, fi.Mode(), err)
				}
			}
			attempts := read("a-attempts") + read("b-attempts")
			if c.user != "auto" {
				for _, a := range peerAttempts {
					if strings.Count(attempts, "SUCCEEDED "+a+"\n") != 2 {
						t.Errorf("control: attempt %s did not get through for both agents of one user:\n%s", a, attempts)
					}
				}
				return
			}
			if len(uids) != 2 {
				t.Fatalf("the two runs at once shared a user: %v", uids)
			}
			for _, me := range []string{"a", "b"} {
				for _, a := range peerAttempts {
					if !strings.Contains(read(me+"-attempts"), "denied "+a+": ") {
						t.Errorf("agent %s: attempt %s was not denied:\n%s", me, a, read(me+"-attempts"))
					}
					byNS := c.box == "mode: auto" && (a == "signal" || a == "environ") // a PID namespace may hide the other
					if e := read(me + "-err-" + a); !byNS && !strings.Contains(e, "ermission denied") && !strings.Contains(e, "ot permitted") {
						t.Errorf("agent %s: attempt %s failed, but not by uid: %q", me, a, e)
					}
					if got := read(me + "-got-" + a); strings.Contains(got, "secret-of-") || (a == "environ" && got != "") {
						t.Errorf("agent %s read the other's %s: %.200q", me, a, got)
					}
				}
			}
			planted, _ := filepath.Glob(filepath.Join(work, "*", "planted-by-*"))
			if len(planted) != 0 {
				t.Errorf("an agent wrote in the other's tree: %v", planted)
			}
		})
	}
}

// tellPIDs writes, for each agent of peerAttack ($XCHG/a and $XCHG/b
// once they are there), its PID as the machine sees it to $XCHG/NAME.pid:
// the process whose name is sh, whose command ends in agent.sh and whose
// environment has XCHG=xchg and ME=NAME. It stops at stop.
func tellPIDs(t *testing.T, xchg string, stop <-chan struct{}) {
	told := map[string]bool{}
	for len(told) < 2 {
		for _, me := range []string{"a", "b"} {
			if _, err := os.Stat(filepath.Join(xchg, me)); err != nil || told[me] {
				continue
			}
			if pid := agentPID(xchg, me); pid > 0 {
				tmp := filepath.Join(xchg, me+".pid.tmp")
				if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%d\n", pid)), 0o644); err != nil {
					t.Error(err)
					return
				}
				if err := os.Rename(tmp, filepath.Join(xchg, me+".pid")); err != nil {
					t.Error(err)
					return
				}
				told[me] = true
			}
		}
		select {
		case <-stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// agentPID is the PID of peerAttack's agent me (tellPIDs), 0 for none.
func agentPID(xchg, me string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if string(comm) == "sh\n" && bytes.HasSuffix(cmdline, []byte("agent.sh\x00")) &&
			bytes.Contains(env, []byte("\x00XCHG="+xchg+"\x00")) && bytes.Contains(env, []byte("\x00ME="+me+"\x00")) {
			return pid
		}
	}
	return 0
}

// makeUser makes a system user for the test and removes it after.
func makeUser(t *testing.T, name string) {
	t.Helper()
	out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput()
	if err != nil {
		t.Fatalf("useradd %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() {
		// What a run killed by a failing test left (processes, ACL
		// entries): taken back as the next run would.
		if h, err := agentuser.Take(context.Background(), name, false, nil); err != nil {
			t.Errorf("taking back from %s: %v", name, err)
		} else if _, err := h.Release(); err != nil {
			t.Errorf("taking back from %s: %v", name, err)
		}
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
		_ = os.Remove(filepath.Join(agentuser.LockDir, name))
	})
}

// removeNewPoolUsers removes, after the test, the users of the pool that
// runs made during it (runs at once take a user each), those no run
// holds then: the next run that needs one makes it again.
func removeNewPoolUsers(t *testing.T) {
	t.Helper()
	had := map[string]bool{}
	for _, n := range agentuser.PoolNames() {
		if _, err := user.Lookup(n); err == nil {
			had[n] = true
		}
	}
	t.Cleanup(func() {
		for _, n := range agentuser.PoolNames() {
			if _, err := user.Lookup(n); had[n] || err != nil {
				continue
			}
			f, err := os.OpenFile(filepath.Join(agentuser.LockDir, n), os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				t.Error(err)
				continue
			}
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil { // else a run holds it
				if out, err := exec.Command("userdel", n).CombinedOutput(); err != nil {
					t.Errorf("userdel %s: %v: %s", n, err, out)
				}
			}
			f.Close()
		}
	})
}

// holdPoolBut holds, for the test, the lock of every user of the pool
// but keep (those no run holds), so the next root run takes keep;
// release lets them go (so does the test's end).
func holdPoolBut(t *testing.T, keep string) (release func()) {
	t.Helper()
	var files []*os.File
	release = func() {
		for _, f := range files {
			f.Close()
		}
		files = nil
	}
	t.Cleanup(release)
	for _, n := range agentuser.PoolNames() {
		if n == keep {
			continue
		}
		f, err := os.OpenFile(filepath.Join(agentuser.LockDir, n), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // a run holds it (one of another test package may free it: killedRunScenario tells)
			continue
		}
		files = append(files, f)
	}
	return release
}

// ralphStarted runs ralph-ci run in dir with env, its stderr to a file
// of the test, and returns the command (started) and that file.
func ralphStarted(t *testing.T, bin, dir string, env []string) (*exec.Cmd, string) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "stderr")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "--log-format", "json", "run", "--max-rotations", "3")
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, logFile
}

// await waits for the file p, or the process done to end (a failure),
// with a guard against a hang.
func await(t *testing.T, p string, done <-chan error) {
	t.Helper()
	guard := time.After(2 * time.Minute)
	for {
		if _, err := os.Stat(p); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("ralph-ci ended before %s was made: %v", p, err)
		case <-guard:
			t.Fatalf("no %s after 2 minutes", p)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// procUID is the real uid of process pid, -1 when it is gone or a
// zombie.
func procUID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil || bytes.Contains(b, []byte("\nState:\tZ")) {
		return -1
	}
	var uid int
	if i := bytes.Index(b, []byte("\nUid:\t")); i < 0 {
		return -1
	} else if _, err := fmt.Sscan(string(b[i+6:]), &uid); err != nil {
		return -1
	}
	return uid
}

// killedAgent is the agent of a run the test kills ($ROLE killed): it
// starts a process of its user of its own session (setsid), tells its
// PID and its shepherd's, and waits to be killed. Any other role does
// the work and claims DONE.
const killedAgent = `cat > /dev/null
if [ "$ROLE" = killed ]; then
  setsid sleep 600 < /dev/null > /dev/null 2>&1 &
  echo "$! $PPID" > "$XCHG/survivor.tmp" && mv "$XCHG/survivor.tmp" "$XCHG/survivor"
  exec sleep 600
fi
echo finished > work.txt
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// A run killed with SIGKILL leaves its user's processes (box mode off:
// no PID namespace to take them), its search-only ACL entries (on the
// test's 0700 folder above its tree), its tree lent (the user's, mode
// 0700) and its record in the user's lock file; the next run that holds
// that user kills the processes, removes the entries, gives the tree
// back to its owner with its mode, logs each, and ends verified. For the
// pool the test holds every other free user while the next run starts,
// so that it takes the killed run's. A user the config names may be one
// of the machine's (a runner's service): its processes are listed as
// alive, not killed.
func TestAgentUserTakesBackWhatAKilledRunLeft(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ralph-ci as root only")
	}
	bin := e2e.RalphBinary(t)
	for _, c := range []struct{ name, user string }{{"pool", "auto"}, {"one named user", "ralph-ci-test-killed"}} {
		t.Run(c.name, func(t *testing.T) {
			if c.user != "auto" {
				makeUser(t, c.user)
			}
			for attempt := 1; killedRunScenario(t, bin, c.user); attempt++ {
				if attempt == 3 {
					t.Fatal("3 times another root run on this machine took the killed run's user first")
				}
				t.Logf("attempt %d: another root run on this machine (a test package running at once) took the killed run's user first: again", attempt)
			}
		})
	}
}

// logLine is the JSON log line of stderr whose message is msg, "" for
// none.
func logLine(stderr []byte, msg string) string {
	for _, l := range bytes.Split(stderr, []byte("\n")) {
		if bytes.Contains(l, []byte(`"message":"`+msg+`"`)) {
			return string(l)
		}
	}
	return ""
}

// A root run that finds every user of the pool held waits, says so in
// its log, and goes on once one is let go: here the test holds every
// user no run holds, and lets them go when the run says it waits.
func TestAgentUserWaitsForAFreeUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ralph-ci as root only")
	}
	bin := e2e.RalphBinary(t)
	tree := peerRepo(t, filepath.Join(t.TempDir(), "a"), killedAgent, "user: auto")
	release := holdPoolBut(t, "")
	defer release()
	cmd, logFile := ralphStarted(t, bin, tree, append(os.Environ(), "ROLE=next"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	const waiting = "box: every user of the agent's pool is held by another run on this machine: waiting for one to end"
	guard := time.After(2 * time.Minute)
	for {
		b, _ := os.ReadFile(logFile)
		if logLine(b, waiting) != "" {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended without waiting (%v):\n%s", err, b)
		case <-guard:
			t.Fatalf("the run did not say it waits:\n%s", b)
		case <-time.After(20 * time.Millisecond):
		}
	}
	release()
	err := <-done
	stderr, _ := os.ReadFile(logFile)
	if err != nil || !bytes.Contains(stderr, []byte("all specs verified")) {
		t.Fatalf("the run did not end verified once a user was free (%v):\n%s", err, stderr)
	}
	if name, _ := e2e.AgentUserOf(stderr); !agentuser.InPool(name) {
		t.Errorf("the run's agent ran as %q", name)
	}
}

// killedRunScenario is one try of TestAgentUserTakesBackWhatAKilledRunLeft
// for the agent's user user ("auto": the pool). It reports interfered
// when, for the pool, another root run of the machine (go test runs
// packages at once) took the killed run's user between its death and the
// next run's start: the next run then holds another user, or finds
// nothing left to take back because that run took it.
func killedRunScenario(t *testing.T, bin, user string) (interfered bool) {
	t.Helper()
	xchg := agentDir(t)
	box := "mode: off, writable: [" + e2e.RecordsRoot + "], user: " + user
	baseA := t.TempDir()
	if err := os.Chmod(baseA, 0o700); err != nil { // root's alone: the agent's user gets a search-only entry
		t.Fatal(err)
	}
	treeA := peerRepo(t, filepath.Join(baseA, "a"), killedAgent, box)
	env := append(os.Environ(), "XCHG="+xchg)
	a, logA := ralphStarted(t, bin, treeA, append(env, "ROLE=killed"))
	done := make(chan error, 1)
	go func() { done <- a.Wait() }()
	await(t, filepath.Join(xchg, "survivor"), done)
	stderrA, _ := os.ReadFile(logA)
	name, uid := e2e.AgentUserOf(stderrA)
	var survivor, shepherd int
	if b, err := os.ReadFile(filepath.Join(xchg, "survivor")); err != nil {
		t.Fatal(err)
	} else if _, err := fmt.Sscan(string(b), &survivor, &shepherd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if procUID(survivor) == uid {
			_ = unix.Kill(survivor, unix.SIGKILL)
		}
	})
	// As a runner that kills the job's processes: ralph-ci and the
	// shepherd, stopped first so that neither sweeps the agent's
	// processes as it dies.
	for _, sig := range []unix.Signal{unix.SIGSTOP, unix.SIGKILL} {
		if err := unix.Kill(a.Process.Pid, sig); err != nil {
			t.Fatal(err)
		}
		if err := unix.Kill(shepherd, sig); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	// What the killed run left.
	if got := procUID(survivor); got != uid || uid <= 0 {
		t.Fatalf("the survivor %d is uid %d, want the agent's %s (%d), alive", survivor, got, name, uid)
	}
	if _, err := unix.Getxattr(baseA, "system.posix_acl_access", make([]byte, 256)); err != nil {
		t.Fatalf("the killed run left no ACL entry on %s: %v", baseA, err)
	}
	if fi, err := os.Stat(filepath.Join(agentuser.LockDir, name)); err != nil || fi.Size() == 0 {
		t.Fatalf("the killed run left no record in its user's lock file: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Stat(treeA, &st); err != nil || int(st.Uid) != uid || st.Mode&0o777 != 0o700 {
		t.Fatalf("the killed run's tree is uid %d mode %o, want lent to %d, 0700 (%v)", st.Uid, st.Mode&0o777, uid, err)
	}
	// The next run that holds the user.
	release := func() {}
	if user == "auto" {
		release = holdPoolBut(t, name)
	}
	treeB := peerRepo(t, filepath.Join(t.TempDir(), "b"), killedAgent, box)
	code, stdout, stderr := e2e.RunRalphArgs(t, bin, treeB, append(env, "ROLE=next"), 2*time.Minute, "--log-format", "json", "run", "--max-rotations", "5")
	release()
	if code != 0 || !bytes.Contains(stderr, []byte("all specs verified")) {
		t.Fatalf("the next run did not end verified (exit %d):\n%s\n%s", code, stdout, stderr)
	}
	next, _ := e2e.AgentUserOf(stderr)
	if user == "auto" && next != name {
		return true
	}
	if next != name {
		t.Fatalf("the next run held %q, not the killed run's %q:\n%s", next, name, stderr)
	}
	took := logLine(stderr, "box: took back from the agent's user what a killed run left")
	if took == "" && user == "auto" && procUID(survivor) == -1 && unix.Stat(treeA, &st) == nil && st.Uid == 0 {
		return true // taken back, by the run that held the user first
	}
	t.Logf("the next run's log: %s", took)
	proc := fmt.Sprintf(`["%d (sleep)"]`, survivor)
	if user != "auto" {
		proc = `"alive":` + proc
	} else {
		proc = `"killed":` + proc
	}
	for _, want := range []string{proc, `"acl_removed":[`, `"` + baseA + `"`, `"given_back":["` + treeA + `"]`} {
		if !strings.Contains(took, want) {
			t.Errorf("the log does not say %s:\n%s", want, stderr)
		}
	}
	if got := procUID(survivor); user == "auto" && got != -1 {
		t.Errorf("the survivor %d is alive (uid %d)", survivor, got)
	} else if user != "auto" && got != uid {
		t.Errorf("the survivor %d of a named user is gone (uid %d)", survivor, got)
	}
	if _, err := unix.Getxattr(baseA, "system.posix_acl_access", make([]byte, 256)); !errors.Is(err, unix.ENODATA) {
		t.Errorf("%s keeps an ACL: %v", baseA, err)
	}
	if err := unix.Stat(treeA, &st); err != nil || st.Uid != 0 || st.Mode&0o777 != 0o755 {
		t.Errorf("the killed run's tree is uid %d mode %o, want root's again, 0755 (%v)", st.Uid, st.Mode&0o777, err)
	}
	if fi, err := os.Stat(filepath.Join(agentuser.LockDir, name)); err != nil || fi.Size() != 0 {
		t.Errorf("the user's record is not empty after the next run: %v", err)
	}
	return false
}
