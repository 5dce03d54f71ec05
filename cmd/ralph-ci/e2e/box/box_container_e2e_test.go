//go:build linux

package box

import (
	"context"
	"encoding/base64"
	"fmt"
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

// A container job (`container:` in the workflow) without Docker: each
// test starts ralph-ci the way the runner's docker exec starts a step,
// in a container e2e.NewContainer simulates (see its doc: namespaces,
// Docker's capabilities and seccomp filter, a read-only cgroup2 mount of
// the container's cgroup namespace, /proc as Docker mounts it), for
// each set of options docs/security.md names.

// probeSh says what a step of the container sees.
const probeSh = `grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status
echo "cgroup"; cat /proc/self/cgroup
echo "cgroup mount $(grep ' - cgroup2 ' /proc/self/mountinfo | cut -d' ' -f4,5)"
if mkdir /sys/fs/cgroup/probe-$$ 2>/dev/null; then rmdir /sys/fs/cgroup/probe-$$; echo "cgroup writable"; else echo "cgroup read-only"; fi
if unshare --user true 2>/dev/null; then echo "userns yes"; else echo "userns no"; fi
if unshare --pid --fork --mount-proc true 2>/dev/null; then echo "pidns yes"; else echo "pidns no"; fi
if [ -s /proc/kcore ] || [ "$(head -c 1 /proc/keys | wc -c)" = 1 ]; then echo "proc unmasked"; else echo "proc masked"; fi
echo "pid $$ host $(hostname)"
`

// TestContainerSimulatesDocker: what a step of each simulated container
// sees is what a step of Docker's sees with those options: root with
// Docker's default capabilities (plus CAP_SYS_ADMIN with --cap-add, all
// with --privileged), no no_new_privs, the seccomp filter only by
// default, the container's cgroup as its namespace's root, mounted
// read-only unless privileged, namespaces refused by default, /proc
// masked unless privileged, and the step not PID 1.
func TestContainerSimulatesDocker(t *testing.T) {
	for _, c := range []struct {
		profile e2e.Profile
		caps    uint64 // 0: the host's
		want    []string
	}{
		{e2e.ProfileDefault, e2e.DockerCapMask(), []string{"Seccomp:\t2", "cgroup read-only", "userns no", "pidns no", "proc masked"}},
		{e2e.ProfileSysAdmin, e2e.DockerCapMask() | 1<<21, []string{"Seccomp:\t0", "cgroup read-only", "pidns yes", "proc masked"}},
		{e2e.ProfileSysAdminSeccomp, e2e.DockerCapMask() | 1<<21, []string{"Seccomp:\t2", "cgroup read-only", "pidns yes", "proc masked"}},
		{e2e.ProfileSeccompUnconfined, e2e.DockerCapMask(), []string{"Seccomp:\t0", "cgroup read-only", "userns yes", "pidns no", "proc masked"}},
		{e2e.ProfileSysAdminAppArmor, e2e.DockerCapMask() | 1<<21, []string{"Seccomp:\t2", "cgroup read-only", "pidns no", "proc masked"}},
		{e2e.ProfilePrivileged, 0, []string{"Seccomp:\t0", "cgroup writable", "pidns yes", "proc unmasked"}},
	} {
		t.Run(string(c.profile), func(t *testing.T) {
			ctr := e2e.NewContainer(t, c.profile)
			cmd := exec.Command("/bin/sh", "-c", probeSh)
			cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
			ctr.Exec(cmd)
			raw, err := cmd.CombinedOutput()
			out := string(raw)
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("the probe failed: %v", err)
			}
			caps := c.caps
			if caps == 0 {
				caps = hostCaps(t)
			}
			want := append([]string{fmt.Sprintf("CapEff:\t%016x", caps), "NoNewPrivs:\t0", "\n0::/\n", "cgroup mount / /sys/fs/cgroup\n",
				"host ralph-ci-container"}, c.want...)
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("the step does not see %q", w)
				}
			}
			if strings.Contains(out, "pid 1 ") {
				t.Errorf("the step is its PID namespace's first process; docker exec's is not")
			}
			calls := ctr.Helper("syscalls")
			ctr.Exec(calls)
			raw, err = calls.CombinedOutput()
			t.Logf("%s", raw)
			want = []string{"clone3: EINVAL\n", "keyctl: <nil>\n"}
			switch c.profile {
			case e2e.ProfileDefault:
				want = []string{"clone3: ENOSYS\n", "keyctl: operation not permitted\n"} // ENOSYS so that libc falls back to clone
			case e2e.ProfileSysAdminSeccomp, e2e.ProfileSysAdminAppArmor:
				want[1] = "keyctl: operation not permitted\n"
			}
			if err != nil || string(raw) != strings.Join(want, "") {
				t.Errorf("the system calls: %q %v, want %q", raw, err, want)
			}
		})
	}
}

// hostCaps is this process's effective capabilities (a privileged
// container's are all the host gives).
func hostCaps(t *testing.T) uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no CapEff in /proc/self/status")
	return 0
}

// TestContainerJobRefusesByDefault: in a container of Docker's default
// (no `options:`), ralph-ci, root there, has no writable cgroup and no
// namespace: run refuses with exit 1, and the message says it is a
// container, which options give a box, how to opt out and what that
// costs. With the opt-out (run --box off) the same container runs the
// loop, and the log says what is given up.
func TestContainerJobRefusesByDefault(t *testing.T) {
	ctr := e2e.NewContainer(t, e2e.ProfileDefault)
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"agent.sh":  "cat > /dev/null\nid -u > uid\necho '<promise>IMPLEMENTATION_COMPLETE</promise>'\necho RALPH_STATUS: DONE\n",
		"PROMPT.md": "# A\n", ".gitignore": ".ralph/\nuid\n",
	})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	run := func(args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, e2e.RalphBinary(t), args...)
		cmd.Dir, cmd.Env = dir, env
		ctr.Exec(cmd)
		out, _ := cmd.CombinedOutput()
		t.Logf("ralph-ci %s: exit %d:\n%s", strings.Join(args, " "), cmd.ProcessState.ExitCode(), out)
		return cmd.ProcessState.ExitCode(), string(out)
	}
	code, out := run("run", "--max-rotations", "1")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"no box", "read-only mount", "root without CAP_SYS_ADMIN, under a seccomp filter", "options: --privileged",
		"--cap-add SYS_ADMIN --security-opt apparmor=unconfined",
		"box: {mode: off}", "run --box off", "outlive its rotation", "token"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "uid")); err == nil {
		t.Errorf("the agent ran although run refused")
	}
	code, out = run("--log-format", "json", "run", "--box", "off", "--max-rotations", "3")
	if code != 0 || !strings.Contains(out, "box: off") {
		t.Errorf("with --box off: exit %d, want 0 and the log saying the box is off", code)
	}
	if uid, _ := os.ReadFile(filepath.Join(dir, "uid")); len(uid) == 0 {
		t.Errorf("with --box off the agent did not run")
	}
}

// TestContainerJobRefusesWithoutTheOptions: the options that look
// close to the docs' but give no box, and what run says there.
// `--security-opt seccomp=unconfined` alone (advice often given for
// namespaces in containers): root without CAP_SYS_ADMIN makes a user
// namespace, but the kernel refuses it a /proc of its own over the
// container's masked one. `--cap-add SYS_ADMIN` without
// apparmor=unconfined on a host with AppArmor: docker-default refuses
// the shepherd's mounts (here the seccomp filter does it, with the
// same EACCES, the machine having no AppArmor). run refuses with exit 1
// and names the cause and the options that work.
func TestContainerJobRefusesWithoutTheOptions(t *testing.T) {
	for _, c := range []struct {
		profile e2e.Profile
		want    []string
	}{
		{e2e.ProfileSeccompUnconfined, []string{"root without CAP_SYS_ADMIN, as in a container", "mounting a /proc", "masked",
			"--cap-add SYS_ADMIN --security-opt apparmor=unconfined"}},
		{e2e.ProfileSysAdminAppArmor, []string{"ralph-ci has CAP_SYS_ADMIN, but the shepherd may not mount", "permission denied",
			"AppArmor's docker-default", "--security-opt apparmor=unconfined"}},
	} {
		t.Run(string(c.profile), func(t *testing.T) {
			ctr := e2e.NewContainer(t, c.profile)
			dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
				"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n",
				"agent.sh":   "cat > /dev/null\necho RALPH_STATUS: DONE\n", "PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
			})
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, e2e.RalphBinary(t), "run", "--max-rotations", "1")
			cmd.Dir, cmd.Env = dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
			ctr.Exec(cmd)
			out, _ := cmd.CombinedOutput()
			t.Logf("exit %d:\n%s", cmd.ProcessState.ExitCode(), out)
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, want := range append(c.want, "read-only mount", "run --box off") {
				if !strings.Contains(string(out), want) {
					t.Errorf("the refusal does not say %q", want)
				}
			}
		})
	}
}

// TestContainerJobBoxHolds: with each set of options the docs give, the
// box holds in the container: ralph-ci, root there, runs the agent as a
// user of its own, and the escapes that every box must hold (a setsid'd
// process that then kills its shepherd, from the agent and from a test
// of the verification command; fork-chasing chains; a double fork), one
// run each, against an HTTP origin that asks for the token: the token
// is never seen, nothing of the attack outlives the run, and the log
// names what the box killed. --privileged gives the cgroup box (its
// cgroup2 mount is writable) and the network box; --cap-add SYS_ADMIN
// with seccomp and AppArmor unconfined the PID namespace, made without
// a user namespace, and Landlock's network rule.
func TestContainerJobBoxHolds(t *testing.T) {
	for _, c := range []struct {
		profile e2e.Profile
		kind    string
		kill    string // how the attack kills its shepherd (a PID namespace's is its PID 1)
	}{{e2e.ProfilePrivileged, "cgroup", killShepherd}, {e2e.ProfileSysAdmin, "pidns", killShepherdNS},
		{e2e.ProfileSysAdminSeccomp, "pidns", killShepherdNS}} {
		t.Run(string(c.profile), func(t *testing.T) {
			ctr := e2e.NewContainer(t, c.profile)
			for _, e := range escapesKilling(c.kill) {
				t.Run(e.name, func(t *testing.T) { containerEscape(t, ctr, c.kind, e) })
			}
		})
	}
}

// containerEscape runs the escape e through the binary, started in ctr
// as a container job's step, and checks that the box of kind holds it.
func containerEscape(t *testing.T, ctr *e2e.Container, kind string, e escape) {
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:test-token"))
	out := agentDir(t)
	script := `id -u >> "$OUT/uid"; readlink /proc/self/ns/net >> "$OUT/netns"; grep -E '^(CapEff|NoNewPrivs):' /proc/self/status >> "$OUT/privs"` +
		"\n" + e.script
	for name, body := range map[string]string{"escape.sh": script, "steal.sh": stealSh, "chase.sh": chaseSh, "look.sh": lookSh} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), escapeFiles(), e2e.HTTPOrigin)
	var mu sync.Mutex
	var aliveAtGit []string
	w.OnRequest = func(r *http.Request) {
		if left := processesNaming(out); len(left) > 0 {
			mu.Lock()
			aliveAtGit = append(aliveAtGit, r.Method+" "+r.URL.Path+": "+strconv.Itoa(len(left))+" processes of the attack alive")
			mu.Unlock()
		}
	}
	w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "WHERE="+e.where, "HEADER_A="+header[:10], "HEADER_B="+header[10:])
	w.Job("", "")
	w.ExtraEnv = append(w.ExtraEnv, "WORK="+w.Dir)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	// Four rotations: where the agent kills its shepherd, its first one
	// ends without a status.
	cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "4")
	cmd.Env = tokenInFile(t, cmd.Env)
	ctr.Exec(cmd)
	_ = cmd.Run()
	left := processesNaming(out)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(out, name)); return string(b) }
	t.Logf("exit %d; uid %s; the attack said: %s", cmd.ProcessState.ExitCode(), strings.TrimSpace(read("uid")), read("log"))
	if !strings.Contains(stderr.String(), `"kind":"`+kind+`"`) {
		t.Fatalf("the run was not boxed in a %s:\n%s\n%s", kind, stdout, stderr)
	}
	// The network: --privileged gives the network box (a namespace
	// with only the proxy); CAP_SYS_ADMIN alone makes the namespace but
	// cannot bring its loopback up (CAP_NET_ADMIN), so Landlock's rule
	// to the proxy's port holds instead.
	host, _ := os.Readlink("/proc/self/ns/net") // the container's, the host's network
	agentNet := strings.Fields(read("netns"))
	netBox := len(agentNet) > 0 && agentNet[0] != host && !strings.Contains(stderr.String(), "no network box")
	landlock := strings.Contains(stderr.String(), "CAP_NET_ADMIN): Landlock lets")
	if kind == "cgroup" && !netBox || kind == "pidns" && !landlock {
		t.Errorf("the network: a network box %v (the agent's %v, the container's %s), Landlock's rule %v:\n%s", netBox, agentNet, host, landlock, stderr)
	}
	if kind == "pidns" && !strings.Contains(stderr.String(), `"user_namespace":false`) {
		t.Errorf("the PID namespace was made through a user namespace, with CAP_SYS_ADMIN at hand:\n%s", stderr)
	}
	// A verification whose shepherd is killed fails, every time: only
	// the PID namespace's root shepherd lets that class end verified.
	if code := cmd.ProcessState.ExitCode(); code != 0 && (kind == "pidns" || e.where == "agent") {
		t.Errorf("exit %d, want 0:\n%s\n%s", code, stdout, stderr)
	}
	if uid := strings.Fields(read("uid")); len(uid) == 0 || uid[0] == "0" {
		t.Errorf("the attack ran as uid %v, not as the agent's user of its own", uid)
	}
	// Docker sets no no_new_privs, and root there has capabilities:
	// the box takes both away.
	if privs := read("privs"); !strings.Contains(privs, "CapEff:\t0000000000000000") || !strings.Contains(privs, "NoNewPrivs:\t1") || strings.Contains(privs, "NoNewPrivs:\t0") {
		t.Errorf("the boxed process has privileges: %s", privs)
	}
	if stolen := read("stolen"); stolen != "" {
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
	if !strings.Contains(read("log"), "killed shepherd") {
		t.Errorf("the attack did not run (no shepherd found)")
	}
	if kind == "pidns" && !strings.Contains(read("log"), "killed shepherd 1: 1") {
		// The cgroup box's shepherd runs as the agent's user, and
		// killing it releases nothing; the namespace's is root's.
		t.Errorf("the agent's user signalled its root shepherd, PID 1 of its namespace: %s", read("log"))
	}
}
