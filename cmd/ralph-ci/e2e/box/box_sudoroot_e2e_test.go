//go:build linux

package box

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// sudoRootAttack runs as the agent of a ralph-ci that a user with
// passwordless sudo started: it finds ralph-ci (the shepherd's parent)
// and the invoking ralph-ci (the parent of its sudo), notes its uid, its
// PATH and PYTHONPATH (which sudo replaces and drops), and tries, one
// line each in $OUT/attempts, to read ralph-ci's environment and memory,
// the invoking ralph-ci's environment, the invoking user's 0600 job file
// $JOBFILE, and to become root with sudo -n.
const sudoRootAttack = `cat > /dev/null
` + tryAttempt + `
if [ "$RALPH_ITERATION" = 1 ]; then
` + findRalph + `
  I=$(parent $(parent $R))
  echo "$R $I" > "$OUT/pids"
  id -u > "$OUT/uid"
  echo "$PATH" > "$OUT/path"
  echo "$PYTHONPATH" > "$OUT/pythonpath"
  try environ cat /proc/$R/environ
  try mem head -c 4096 /proc/$R/mem
  try invoker-environ cat /proc/$I/environ
  try jobfile cat "$JOBFILE"
  try sudo sudo -n id -u
  echo finished > work.txt
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// sudoRootWorld is a CI job of a pull request whose checkout, job files
// and HOME belong to a user the test made, with passwordless sudo (as
// GitHub's runner user has) when sudo is true; ralph-ci is a copy of the
// test binary the user may run. Everything is removed when the test ends.
type sudoRootWorld struct {
	*e2e.CIWorld
	U    e2e.SudoUser
	Base string
}

func newSudoRootWorld(t *testing.T, prefix string, sudo bool, files map[string]string) *sudoRootWorld {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creates a user: needs root")
	}
	for _, tool := range []string{"sudo", "useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs sudo)", tool)
		}
	}
	base, err := os.MkdirTemp("", "ralph-ci-sudoroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u := e2e.NewUser(t, filepath.Join(base, "home"), prefix, sudo)
	t.Cleanup(func() { os.RemoveAll("/var/tmp/ralph-ci-" + strconv.Itoa(u.UID)) })
	bin := filepath.Join(base, "bin", "ralph-ci")
	e2e.CopyFile(t, e2e.RalphBinary(t), bin, 0o755)
	w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
	w.Job("", "")
	for _, p := range []string{w.Summary, w.Output} { // the runner makes them, the job's user's
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{w.Dir, w.Event, w.Summary, w.Output, w.Prompts, u.Home} {
		reachable(t, p)
		e2e.ChownTree(t, p, u)
	}
	return &sudoRootWorld{CIWorld: w, U: u, Base: base}
}

// reachable lets every user search the folders above p that the test
// made (in the temporary folder): they are root's, 0700.
func reachable(t *testing.T, p string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	for dir := filepath.Dir(p); strings.HasPrefix(dir, tmp+"/"); dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
}

// command is ralph-ci args as the user, with the job's environment, its
// HOME, extra, and the token in a 0600 file of the user's (as the Action
// hands it: ralph-ci reads it and deletes it).
func (w *sudoRootWorld) command(t *testing.T, ctx context.Context, extra []string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	token := filepath.Join(w.U.Home, "token")
	if err := os.WriteFile(token, []byte("test-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2e.ChownTree(t, token, w.U)
	cmd, _, _ := w.Command(ctx, args...)
	var env []string
	for _, kv := range cmd.Env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "USER" && k != "LOGNAME" && k != "GITHUB_TOKEN" {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+w.U.Home, "USER="+w.U.Name, "LOGNAME="+w.U.Name, "RALPH_TOKEN_FILE="+token)
	cmd.Env = append(cmd.Env, extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(w.U.UID), Gid: uint32(w.U.Gid), Groups: []uint32{}}}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	return cmd, &log
}

// ownedBy lists the entries under top that are not uid's.
func ownedBy(t *testing.T, top string, uid int) []string {
	t.Helper()
	var wrong []string
	err := filepath.Walk(top, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != uid {
			wrong = append(wrong, p+" ("+strconv.Itoa(int(st.Uid))+")")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return wrong
}

// TestSudoGivesTheAgentAUserOfItsOwn: a user with passwordless sudo, as
// GitHub's runner user is, runs `ralph-ci run --deliver pr` on a checkout
// of its own with an origin that asks for the token. ralph-ci runs itself
// as root through sudo, and the agent runs as a user of the agent pool
// (ralph-agent, ...): it reads neither ralph-ci's environment and memory,
// nor the invoking ralph-ci's environment, nor the user's 0600 job file,
// and its sudo fails; it still
// has the job's PATH and PYTHONPATH, which sudo replaces and drops. The
// loop verifies and pushes the work; afterwards the tree, the JUnit report
// (in a new folder outside the tree), the user's HOME (the run as root's
// too) and the job's output and summary files are the user's, and the exit-code output (run as the Action) is
// written once.
func TestSudoGivesTheAgentAUserOfItsOwn(t *testing.T) {
	files := escapeFiles()
	files["agent.sh"] = sudoRootAttack
	files["check.sh"] = "grep -q finished work.txt\n"
	w := newSudoRootWorld(t, "rcsr", true, files)
	out := agentDir(t)
	secret := "job-secret-" + strconv.Itoa(os.Getpid())
	jobFile := filepath.Join(w.U.Home, "job-file")
	if err := os.WriteFile(jobFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2e.ChownTree(t, jobFile, w.U)
	tools := filepath.Join(w.Base, "tools-on-the-job-path")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(w.Base, "reports", "deep", "junit.xml")
	if err := os.WriteFile(w.Output, []byte("before=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd, log := w.command(t, ctx, []string{"OUT=" + out, "JOBFILE=" + jobFile, "RALPH_ACTION=1", "PYTHONPATH=/job/python", "PATH=" + tools + ":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"},
		"--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3", "--junit", junit, "--json", ".ralph/report.json")
	_ = cmd.Run()
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(out, name)); return string(b) }
	attempts := read("attempts")
	t.Logf("exit %d, uid %s; the attempts:\n%s", cmd.ProcessState.ExitCode(), read("uid"), attempts)
	if !strings.Contains(log.String(), "all specs verified") || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the run did not end verified (exit %d):\n%s", cmd.ProcessState.ExitCode(), log)
	}
	if !strings.Contains(log.String(), "runs itself as root through passwordless sudo") {
		t.Errorf("the log does not say ralph-ci ran itself as root:\n%s", log)
	}
	if got := strings.TrimSpace(ghorigin.Git(t, w.Bare, "show", "refs/heads/changes:work.txt")); got != "finished" {
		t.Errorf("the pushed work.txt is %q, not the agent's work", got)
	}
	name, uid := e2e.AgentUserOf([]byte(log.String()))
	if !agentuser.InPool(name) {
		t.Fatalf("the log does not name a user of the agent pool (%q):\n%s", name, log)
	}
	if got := strings.TrimSpace(read("uid")); got != strconv.Itoa(uid) || uid == w.U.UID || uid == 0 {
		t.Fatalf("the agent is uid %q, not %s's (%d; the invoking user is %d)", got, name, uid, w.U.UID)
	}
	for _, a := range []string{"environ", "mem", "invoker-environ", "jobfile", "sudo"} {
		if !strings.Contains(attempts, "denied "+a+": ") {
			t.Errorf("attempt %s was not denied:\n%s", a, attempts)
		}
	}
	for _, a := range []string{"environ", "mem", "invoker-environ", "jobfile"} {
		if e := read("err-" + a); !strings.Contains(e, "ermission denied") {
			t.Errorf("attempt %s failed, but not by uid: %s", a, e)
		}
	}
	for _, name := range []string{"got-environ", "got-mem", "got-invoker-environ", "got-jobfile", "got-sudo"} {
		if got := read(name); got != "" {
			t.Errorf("the agent read %s: %.200q", name, got)
		}
	}
	if !strings.HasPrefix(read("path"), tools+":") || read("pythonpath") != "/job/python\n" {
		t.Errorf("the agent did not get the job's PATH and PYTHONPATH: PATH %q, PYTHONPATH %q", read("path"), read("pythonpath"))
	}
	if wrong := ownedBy(t, w.Dir, w.U.UID); len(wrong) > 0 {
		t.Errorf("after the run, entries of the tree are not the user's (%d):\n%s", w.U.UID, strings.Join(wrong, "\n"))
	}
	for _, p := range []string{filepath.Join(w.Dir, ".ralph", "report.json"), junit} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("report %s: %v", p, err)
		}
	}
	if wrong := ownedBy(t, filepath.Join(w.Base, "reports"), w.U.UID); len(wrong) > 0 {
		t.Errorf("the report outside the tree is not the user's:\n%s", strings.Join(wrong, "\n"))
	}
	if wrong := ownedBy(t, w.U.Home, w.U.UID); len(wrong) > 0 { // the run as root had it as HOME
		t.Errorf("root left entries in the user's HOME:\n%s", strings.Join(wrong, "\n"))
	}
	for _, p := range []string{w.Output, w.Summary} {
		if wrong := ownedBy(t, p, w.U.UID); len(wrong) > 0 {
			t.Errorf("the job's file is no longer the user's: %s", wrong)
		}
	}
	output, _ := os.ReadFile(w.Output)
	if n := strings.Count(string(output), "exit-code"); n != 1 || !strings.HasPrefix(string(output), "before=1\n") {
		t.Errorf("GITHUB_OUTPUT holds %d exit-code outputs (want 1, appended):\n%s", n, output)
	}
	if _, err := os.Stat(filepath.Join(w.U.Home, "token")); err == nil {
		t.Error("the token file is left")
	}
}

// TestSudoRunCancelledAsTheRunnerCancels: the Actions runner cancels a
// step with SIGINT, then SIGTERM, sent to the process it started: the
// invoking ralph-ci. It relays them through sudo to the run as root,
// which stops the agent (its background sleep included), gives the tree
// back to the user and exits 128+signal (the first one's); the invoking
// ralph-ci exits with that code, and no process of the run is left.
func TestSudoRunCancelledAsTheRunnerCancels(t *testing.T) {
	for _, tc := range []struct {
		name string
		sigs []syscall.Signal
		code int
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, 130},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143},
		{"SIGINT then SIGTERM", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := "3" + strconv.Itoa(os.Getpid()%10000) + strconv.Itoa(tc.code+len(tc.sigs))
			files := escapeFiles()
			files["agent.sh"] = "cat > /dev/null\nsleep " + marker + " &\necho started > \"$OUT/started\"\nwait\n"
			w := newSudoRootWorld(t, "rcsc", true, files)
			out := agentDir(t)
			fifo := filepath.Join(out, "started")
			if err := syscall.Mkfifo(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd, log := w.command(t, ctx, []string{"OUT=" + out}, "--log-format", "json", "run", "--max-rotations", "3")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			started := make(chan struct{})
			go func() { // opening a FIFO to read waits for its writer: the agent
				if f, err := os.Open(fifo); err == nil {
					_, _ = io.Copy(io.Discard, f)
					f.Close()
				}
				close(started)
			}()
			select {
			case <-started:
			case <-exited:
				t.Fatalf("ralph-ci ended before the agent started (exit %d):\n%s", cmd.ProcessState.ExitCode(), log)
			case <-ctx.Done():
				t.Fatalf("the agent never started:\n%s", log)
			}
			for _, s := range tc.sigs {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-exited:
			case <-ctx.Done():
				t.Fatalf("ralph-ci did not end after %v:\n%s", tc.sigs, log)
			}
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit %d, want %d:\n%s", got, tc.code, log)
			}
			if !strings.Contains(log.String(), "runs itself as root through passwordless sudo") {
				t.Errorf("the run did not go through sudo:\n%s", log)
			}
			if left := processesOf(t, w.Bin, "sleep "+marker); len(left) > 0 {
				t.Errorf("processes of the run are left: %s", left)
			}
			if wrong := ownedBy(t, w.Dir, w.U.UID); len(wrong) > 0 {
				t.Errorf("after the cancelled run, entries of the tree are not the user's:\n%s", strings.Join(wrong, "\n"))
			}
		})
	}
}

// processesOf lists the live processes running the binary bin or whose
// command line is cmdline.
func processesOf(t *testing.T, bin, cmdline string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		raw, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		line := strings.TrimSpace(strings.ReplaceAll(string(raw), "\x00", " "))
		if exe == bin || line == cmdline {
			left = append(left, e.Name()+" ("+line+")")
		}
	}
	return left
}

// TestSudoMissingOrAskingKeepsTheRun: where the job's user has no
// passwordless sudo (sudo asks for a password), `ralph-ci run` goes on as
// that user, as before: the agent runs as the job's user, the loop
// verifies, and the log says once why and how to give the agent a user
// of its own. With box.user off, a user with passwordless sudo never
// goes through it, and the log says nothing of it.
func TestSudoMissingOrAskingKeepsTheRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sudo    bool
		config  string
		howtos  int
		message string
	}{
		{"sudo asks for a password", false, "", 1, "sudo asks for a password: the agent runs as the job's user"},
		{"box.user off", true, "box: {user: off}\n", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := escapeFiles()
			files["ralph.yaml"] += tc.config
			files["agent.sh"] = "cat > /dev/null\nid -u > \"$OUT/uid\"\necho finished > work.txt\n" +
				"echo '- [x] work.txt says finished'\necho '<promise>IMPLEMENTATION_COMPLETE</promise>'\necho 'RALPH_STATUS: DONE'\n"
			files["check.sh"] = "grep -q finished work.txt\n"
			w := newSudoRootWorld(t, "rcno", tc.sudo, files)
			out := agentDir(t)
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd, log := w.command(t, ctx, []string{"OUT=" + out}, "--log-format", "json", "run", "--max-rotations", "3")
			_ = cmd.Run()
			if !strings.Contains(log.String(), "all specs verified") || cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("the run did not end verified (exit %d):\n%s", cmd.ProcessState.ExitCode(), log)
			}
			uid, _ := os.ReadFile(filepath.Join(out, "uid"))
			if got := strings.TrimSpace(string(uid)); got != strconv.Itoa(w.U.UID) {
				t.Errorf("the agent is uid %q, want the job's user's %d", got, w.U.UID)
			}
			if strings.Contains(log.String(), "runs itself as root") {
				t.Errorf("the run went through sudo:\n%s", log)
			}
			if n := strings.Count(log.String(), "the agent runs as the job's user"); n != tc.howtos {
				t.Errorf("the log says %d times that the agent runs as the job's user, want %d:\n%s", n, tc.howtos, log)
			}
			if tc.message != "" && (!strings.Contains(log.String(), tc.message) || !strings.Contains(log.String(), "docs/security.md")) {
				t.Errorf("the log does not say why (%q) and how:\n%s", tc.message, log)
			}
			if wrong := ownedBy(t, w.Dir, w.U.UID); len(wrong) > 0 {
				t.Errorf("entries of the tree are not the user's:\n%s", strings.Join(wrong, "\n"))
			}
		})
	}
}

// TestSudoPayloadOnlyFromTheInvoker: a ralph-ci as root takes its
// environment from the pipe RALPH_SUDO_FROM names only when the process
// holding it is SUDO_UID's and started it through sudo. A process of the
// user that did not (here a sleep holding a pipe with a forged
// environment) is refused: the run ends with exit 1 before anything else,
// and never with that environment.
func TestSudoPayloadOnlyFromTheInvoker(t *testing.T) {
	files := escapeFiles()
	w := newSudoRootWorld(t, "rcsp", false, files)
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	holder := e2e.AsUser(w.U, -1, "/", []string{"PATH=/usr/bin:/bin"}, "sleep", "300")
	holder.ExtraFiles = []*os.File{r}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	forged := `{"env":["PATH=/usr/bin:/bin","RALPH_FORGED=1"]}`
	if _, err := wr.WriteString(forged); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, log := w.command(t, ctx, []string{"SUDO_UID=" + strconv.Itoa(w.U.UID), "SUDO_GID=" + strconv.Itoa(w.U.Gid),
		"RALPH_SUDO_FROM=" + strconv.Itoa(holder.Process.Pid) + "/3"}, "--log-format", "json", "run", "--max-rotations", "1")
	cmd.SysProcAttr = nil // as root, as sudo would start it
	_ = cmd.Run()
	if got := cmd.ProcessState.ExitCode(); got != 1 || !strings.Contains(log.String(), "did not start this one through sudo") {
		t.Errorf("exit %d, want 1 refusing the payload:\n%s", got, log)
	}
	if strings.Contains(log.String(), `"message":"rotation"`) {
		t.Errorf("the run went on:\n%s", log)
	}
}
