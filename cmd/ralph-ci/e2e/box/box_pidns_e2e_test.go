//go:build linux

package box

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The PID-namespace box, where no cgroup can be had: ralph-ci runs as a
// user the test makes, in this test's cgroup (root's, so not the user's
// to write), with no cgroup delegated and no sudo, as on a self-hosted
// runner's non-root user without systemd delegation. `box.mode: auto`
// then falls back to a PID namespace per process, made through a user
// namespace mapping only the user's uid.

// killShepherdNS kills the nearest ancestor that is a shepherd, PID 1
// included (in the box, the shepherd is the namespace's PID 1), with
// SIGKILL.
const killShepherdNS = `p=$$
while [ "$p" -ge 1 ]; do
  if [ "$(tr '\0' '\n' < /proc/$p/cmdline | head -n 1)" = ralph-ci-shepherd ]; then kill -9 $p; echo "killed shepherd $p: $?" >> "$OUT/log"; break; fi
  [ "$p" = 1 ] && break
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
`

// nsEscapes are the classes of TestBoxKeepsEscapesFromTheToken that a
// PID namespace must hold, each killing its shepherd as killShepherdNS
// does (a process cannot move itself out of a PID namespace).
var nsEscapes = escapesKilling(killShepherdNS)

// nsUser is a user of the test's own without sudo, and the folder it
// runs ralph-ci from (a copy of the binary, HOME, TMPDIR).
type nsUser struct {
	u        e2e.SudoUser
	base     string
	bin, tmp string
}

// newNSUser makes the user, removed when the test ends with all it
// made (a last cleanup checks).
func newNSUser(t *testing.T, prefix string) *nsUser {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creates a user: needs root")
	}
	base, err := os.MkdirTemp("", "ralph-ci-pidns-")
	if err != nil {
		t.Fatal(err)
	}
	var u e2e.SudoUser
	t.Cleanup(func() { // runs last
		if u.Name == "" {
			return
		}
		for _, p := range []string{base, "/var/tmp/ralph-ci-" + strconv.Itoa(u.UID)} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s is left", p)
			}
		}
	})
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u = e2e.NewUser(t, filepath.Join(base, "home"), prefix, false)
	t.Cleanup(func() { os.RemoveAll("/var/tmp/ralph-ci-" + strconv.Itoa(u.UID)) })
	n := &nsUser{u: u, base: base, bin: filepath.Join(base, "bin", "ralph-ci"), tmp: filepath.Join(base, "tmp")}
	e2e.CopyFile(t, e2e.RalphBinary(t), n.bin, 0o755)
	if err := os.Mkdir(n.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	e2e.ChownTree(t, u.Home, u)
	e2e.ChownTree(t, n.tmp, u)
	return n
}

// own gives the user the folders of a CIWorld's job (the checkout, the
// job's files) and out, and lets it reach them.
func (n *nsUser) own(t *testing.T, w *e2e.CIWorld, out string) {
	t.Helper()
	for _, dir := range []string{filepath.Dir(w.Dir), filepath.Dir(w.Event), filepath.Dir(out)} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{w.Dir, filepath.Dir(w.Event), out} {
		e2e.ChownTree(t, p, n.u)
	}
}

// TestPIDNSBoxKeepsEscapesFromTheToken is TestBoxKeepsEscapesFromTheToken
// in the PID-namespace box: ralph-ci as a user without any cgroup or
// sudo, delivering to an HTTP origin that asks for the token, each class
// of escape in several runs. At every request that reaches the origin
// (ralph-ci's git, with the token), no process of the attack is alive;
// the token is never seen; nothing of the attack outlives the run; and
// the log names what the box killed.
func TestPIDNSBoxKeepsEscapesFromTheToken(t *testing.T) {
	n := newNSUser(t, "rcpns")
	for _, e := range nsEscapes {
		for run := 1; run <= 2; run++ {
			t.Run(e.name+"/"+strconv.Itoa(run), func(t *testing.T) { nsEscape(t, e.where, e.script, n) })
		}
	}
}

// TestPIDNSBoxAsRoot: the same escapes where ralph-ci is root and asks
// for the PID namespace (run --box pidns): it makes each namespace with
// CLONE_NEWPID, in its network box, and the shepherd empties root's
// capabilities as in the cgroup box. One run of each class.
func TestPIDNSBoxAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, e := range nsEscapes {
		t.Run(e.name, func(t *testing.T) { nsEscape(t, e.where, e.script, nil) })
	}
}

// nsEscape runs one escape (script, from where) through the binary in
// the PID-namespace box: as n (the fallback of box.mode auto), or as
// root with run --box pidns when n is nil.
func nsEscape(t *testing.T, where, script string, n *nsUser) {
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:test-token"))
	out := agentDir(t) // the agent writes there, as its own user where ralph-ci is root (under e2e.RecordsRoot: RecordsGrant)
	for name, body := range map[string]string{"escape.sh": script, "steal.sh": stealSh, "chase.sh": chaseSh, "look.sh": lookSh} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, args := e2e.RalphBinary(t), []string{"--log-format", "json", "run", "--box", "pidns", "--deliver", "pr", "--max-rotations", "3"}
	if n != nil {
		bin, args = n.bin, []string{"--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3"}
	}
	w := e2e.NewCIWorld(t, bin, escapeFiles(), e2e.HTTPOrigin)
	var mu sync.Mutex
	var aliveAtGit []string
	w.OnRequest = func(r *http.Request) {
		if left := processesNaming(out); len(left) > 0 {
			mu.Lock()
			aliveAtGit = append(aliveAtGit, r.Method+" "+r.URL.Path+": "+strconv.Itoa(len(left))+" processes of the attack alive")
			mu.Unlock()
		}
	}
	w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "WHERE="+where, "HEADER_A="+header[:10], "HEADER_B="+header[10:])
	if n != nil {
		w.ExtraEnv = append(w.ExtraEnv, "HOME="+n.u.Home, "TMPDIR="+n.tmp)
	}
	w.Job("", "")
	w.ExtraEnv = append(w.ExtraEnv, "WORK="+w.Dir)
	if n != nil {
		n.own(t, w, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, stdout, stderr := w.Command(ctx, args...)
	cmd.Env = tokenInFile(t, cmd.Env)
	if n != nil {
		for _, kv := range cmd.Env {
			if f, ok := strings.CutPrefix(kv, "RALPH_TOKEN_FILE="); ok {
				e2e.ChownTree(t, filepath.Dir(f), n.u)
				_ = os.Chmod(filepath.Dir(filepath.Dir(f)), 0o755)
			}
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(n.u.UID), Gid: uint32(n.u.Gid), Groups: []uint32{}}}
	}
	_ = cmd.Run()
	left := processesNaming(out)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	log, _ := os.ReadFile(filepath.Join(out, "log"))
	t.Logf("exit %d; the attack said: %s", cmd.ProcessState.ExitCode(), log)
	if !strings.Contains(stderr.String(), `"kind":"pidns"`) || !strings.Contains(stderr.String(), `"user_namespace":`+strconv.FormatBool(n != nil)) {
		t.Fatalf("the run was not boxed in a PID namespace (through a user namespace: %v):\n%s\n%s", n != nil, stdout, stderr)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d, want 0:\n%s\n%s", code, stdout, stderr)
	}
	if stolen, _ := os.ReadFile(filepath.Join(out, "stolen")); len(stolen) > 0 {
		t.Errorf("the escaped process read the token:\n%s", stolen)
	}
	mu.Lock()
	if len(aliveAtGit) > 0 {
		t.Errorf("processes of the attack were alive when ralph-ci's git reached the origin: %v", aliveAtGit)
	}
	mu.Unlock()
	if pushes := w.Pushes(); len(pushes) == 0 {
		t.Errorf("ralph-ci pushed nothing: the origin saw %v", w.Requests)
	}
	if len(left) > 0 {
		t.Errorf("processes of the attack outlived the run: %v", left)
	}
	if !strings.Contains(stderr.String(), "box: killed the processes that outlived their command") {
		t.Errorf("the log names no process the box killed:\n%s\n%s", stdout, stderr)
	}
	if !strings.Contains(script, "chase.sh") { // the chains' pids change as they run
		pids, _ := os.ReadFile(filepath.Join(out, "pids"))
		for _, pid := range strings.Fields(string(pids)) {
			if !strings.Contains(stderr.String(), `"killed":"`+pid+" (") && !strings.Contains(stderr.String(), ", "+pid+" (") {
				t.Errorf("the log does not name the stealer %s:\n%s", pid, stderr)
			}
		}
	}
	switch {
	case n == nil: // as root, the agent's user of its own (box.user) may not signal its root shepherd
		if !strings.Contains(string(log), "killed shepherd 1: 1") {
			t.Errorf("the agent's user signalled its root shepherd, PID 1 of its namespace: %s", log)
		}
	case !strings.Contains(string(log), "killed shepherd 1: 0"):
		t.Errorf("the attack did not kill its shepherd, PID 1 of its namespace: %s", log)
	}
}

// TestBoxRefusesWithoutCgroupOrUserNamespaces: the same user, where the
// kernel refuses it user namespaces too (user.max_user_namespaces=0 in
// the user namespace it runs in, which maps every id to itself, so
// nothing else changes): no box can be had, and run refuses with exit 1,
// naming why for each kind, how to get one (the container job's options
// included) and how to opt out.
func TestBoxRefusesWithoutCgroupOrUserNamespaces(t *testing.T) {
	n := newNSUser(t, "rcnns")
	dir := e2e.WriteRepoAt(t, filepath.Join(n.base, "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"agent.sh": "cat > /dev/null\necho RALPH_STATUS: DONE\n", "PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
	})
	e2e.ChownTree(t, dir, n.u)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	script := `echo 0 > /proc/sys/user/max_user_namespaces || exit 99
exec setpriv --reuid="$U" --regid="$G" --clear-groups "$BIN" run --max-rotations 1`
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + n.u.Home, "TMPDIR=" + n.tmp, "GIT_CONFIG_NOSYSTEM=1",
		"U=" + strconv.Itoa(n.u.UID), "G=" + strconv.Itoa(n.u.Gid), "BIN=" + n.bin}
	all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UidMappings: all, GidMappings: all, GidMappingsEnableSetgroups: true}
	out, _ := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if code == 99 {
		t.Skipf("cannot set user.max_user_namespaces in a user namespace here:\n%s", out)
	}
	t.Logf("exit %d:\n%s", code, out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"cgroup:", "PID namespace:", "user namespace", "max_user_namespaces",
		"--privileged", "--cap-add SYS_ADMIN", "apparmor=unconfined", "run --box off", "box: {mode: off}"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
}

// hangSh ignores SIGTERM and runs until killed.
const hangSh = `trap "" TERM HUP
while :; do sleep 0.1; done
`

// TestPIDNSBoxEndsWhenRalphDies: ralph-ci, as the user of
// TestPIDNSBoxKeepsEscapesFromTheToken, is killed with SIGKILL while its
// agent runs and has left a setsid'd process behind, both ignoring
// SIGTERM. The shepherd gets its parent-death signal, and after the
// grace period its namespace ends: nothing of the agent outlives the
// run, with no later run to clean up (no cgroup is left to sweep).
func TestPIDNSBoxEndsWhenRalphDies(t *testing.T) {
	n := newNSUser(t, "rcpnk")
	out := filepath.Join(n.base, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "hang.sh"), []byte(hangSh), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := e2e.WriteRepoAt(t, filepath.Join(n.base, "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 5m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
			"box: {writable: [" + out + "]}\n", // the agent notes that it started in $OUT
		"agent.sh": `cat > /dev/null
setsid sh "$OUT/hang.sh" < /dev/null > /dev/null 2>&1 &
echo > "$OUT/started"
exec sh "$OUT/hang.sh"
`, "PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
	})
	e2e.ChownTree(t, dir, n.u)
	e2e.ChownTree(t, out, n.u)
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + n.u.Home, "TMPDIR=" + n.tmp, "OUT=" + out, "GIT_CONFIG_NOSYSTEM=1"}
	cmd := e2e.AsUser(n.u, -1, dir, env, n.bin, "--log-format", "json", "run", "--max-rotations", "1")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		for _, pid := range processesNaming(out) { // a guard, should the box fail
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(out, "started")); err == nil && len(processesNaming(out)) >= 2 {
			break // the agent and its survivor run hang.sh
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("the agent did not start:\n%s", log.String())
		}
	}
	_ = cmd.Process.Kill()
	<-done
	if !strings.Contains(log.String(), `"kind":"pidns"`) {
		t.Fatalf("the run was not boxed in a PID namespace:\n%s", log.String())
	}
	// The shepherd waits its grace period (10 s) for SIGTERM to work.
	for deadline := time.Now().Add(60 * time.Second); len(processesNaming(out)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the agent outlived ralph-ci by a minute: %v", processesNaming(out))
		}
	}
}
