//go:build linux

package box

import (
	"context"
	"os"
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

// userAttack runs as the boxed agent of a ralph-ci run as root: it finds
// ralph-ci (the shepherd's parent) and tries, one line each in
// $OUT/attempts, to read ralph-ci's environment and memory, to make a
// file in ralph-ci's own git folders (/var/tmp/ralph-ci-0) and to list
// them, to read the job's root-only file $JOBFILE, and to kill ralph-ci.
// Then it does the work and claims DONE. With $CONTROL set it only reads
// the job's file (as uid 0 the others would write in ralph-ci's folder
// and kill the run).
const userAttack = `cat > /dev/null
` + tryAttempt + `
if [ "$RALPH_ITERATION" = 1 ]; then
` + findRalph + `
  echo "$R" > "$OUT/ralph-pid"
  id -u > "$OUT/uid"
  echo "$HOME" > "$OUT/home"
  try environ cat /proc/$R/environ
  try mem head -c 4096 /proc/$R/mem
  try jobfile cat "$JOBFILE"
  if [ -z "$CONTROL" ]; then # as uid 0 these would get through: the control only reads
    try gitdir-list ls /var/tmp/ralph-ci-0
    try gitdir-write touch /var/tmp/ralph-ci-0/planted-by-$OUTNAME
    try kill kill -9 $R
  fi
  mkdir -p "$HOME/.cache/agent" && echo ok > "$HOME/.cache/agent/wrote" && echo home-writable >> "$OUT/attempts"
  mkdir -p made/deep && echo finished > work.txt && echo made > made/deep/file.txt
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// tryAttempt is the shell function with which an agent's script notes
// an attempt: try NAME COMMAND... runs COMMAND, keeps its output in
// $OUT/got-NAME and its errors in $OUT/err-NAME, and adds a line to
// $OUT/attempts: "SUCCEEDED NAME", or "denied NAME: " and its first error.
const tryAttempt = `try() { n=$1; shift; if "$@" > "$OUT/got-$n" 2> "$OUT/err-$n"; then echo "SUCCEEDED $n" >> "$OUT/attempts"; else echo "denied $n: $(head -n 1 "$OUT/err-$n")" >> "$OUT/attempts"; fi; }`

// findRalph is the shell lines with which an agent's script finds
// ralph-ci: R is its PID (the parent of the agent's shepherd); parent
// prints the PID of a process's parent.
const findRalph = `parent() { sed 's/.*) //' /proc/$1/stat | cut -d' ' -f2; }
p=$$
while [ "$p" -gt 1 ]; do
  if [ "$(tr '\0' '\n' < /proc/$p/cmdline | head -n 1)" = ralph-ci-shepherd ]; then break; fi
  p=$(parent $p)
done
R=$(parent $p)`

// agentDir is e2e.AgentDir: a folder the agent's user may write.
func agentDir(t *testing.T) string { return e2e.AgentDir(t) }

// The boxed agent of a ralph-ci run as root, as the user of its own the
// box gives it: every attempt on ralph-ci (its environment, its memory,
// its git folders, the job's root-only file, a kill) fails by uid, its
// HOME is its own to write, and the run still ends verified with the
// agent's work pushed. With `box: {user: off}` the agent is uid 0 again
// and reads the job's root-only file: what the opt-out costs.
func TestAgentUserKeepsRalphOutOfReach(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ralph-ci as root only")
	}
	bin := e2e.RalphBinary(t)
	for _, user := range []string{"auto", "off"} {
		t.Run("box.user "+user, func(t *testing.T) {
			out := agentDir(t)
			secret := "job-secret-" + strconv.Itoa(os.Getpid())
			jobFile := filepath.Join(out, "job-file")
			if err := os.WriteFile(jobFile, []byte(secret+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			files := escapeFiles()
			files["ralph.yaml"] += "box: {user: " + user + "}\n"
			files["agent.sh"] = userAttack
			files["check.sh"] = "grep -q finished work.txt\n"
			w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
			w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "OUTNAME="+filepath.Base(out), "JOBFILE="+jobFile, "RALPH_TEST_SECRET="+secret)
			if user == "off" {
				w.ExtraEnv = append(w.ExtraEnv, "CONTROL=1")
			}
			w.Job("", "")
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3")
			cmd.Env = tokenInFile(t, cmd.Env)
			_ = cmd.Run()
			os.Remove("/var/tmp/ralph-ci-0/planted-by-" + filepath.Base(out)) // only if an attempt got through
			read := func(name string) string { b, _ := os.ReadFile(filepath.Join(out, name)); return string(b) }
			attempts := read("attempts")
			t.Logf("exit %d, uid %s; the attempts:\n%s", cmd.ProcessState.ExitCode(), read("uid"), attempts)
			if !strings.Contains(stderr.String(), "all specs verified") || cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("the run did not end verified (exit %d):\n%s\n%s", cmd.ProcessState.ExitCode(), stdout, stderr)
			}
			if got := strings.TrimSpace(ghorigin.Git(t, w.Bare, "show", "refs/heads/changes:work.txt")); got != "finished" {
				t.Errorf("the pushed work.txt is %q, not the agent's work", got)
			}
			if !strings.Contains(attempts, "home-writable") {
				t.Errorf("the agent could not write its HOME (%s)", read("home"))
			}
			if user == "off" {
				if read("uid") != "0\n" || !strings.Contains(read("got-jobfile"), secret) {
					t.Errorf("with box.user off the agent should be uid 0 and read root's file: uid %q, attempts:\n%s", read("uid"), attempts)
				}
				if !strings.Contains(stderr.String(), "run as ralph-ci's own user") {
					t.Errorf("the log does not say the agent runs as ralph-ci's user:\n%s", stderr)
				}
				return
			}
			name, uid := e2e.AgentUserOf(stderr.Bytes())
			if !agentuser.InPool(name) {
				t.Fatalf("the log does not name a user of the agent pool (%q):\n%s", name, stderr)
			}
			if strings.TrimSpace(read("uid")) != strconv.Itoa(uid) {
				t.Fatalf("the agent is uid %q, not %s's (%d)", read("uid"), name, uid)
			}
			for _, a := range []string{"environ", "mem", "gitdir-list", "gitdir-write", "jobfile", "kill"} {
				if !strings.Contains(attempts, "denied "+a+": ") {
					t.Errorf("attempt %s was not denied:\n%s", a, attempts)
				}
				if e := read("err-" + a); !strings.Contains(e, "ermission denied") && !strings.Contains(e, "ot permitted") {
					t.Errorf("attempt %s failed, but not by uid: %s", a, e)
				}
			}
			for _, name := range []string{"got-environ", "got-mem", "got-jobfile"} {
				if got := read(name); got != "" {
					t.Errorf("the agent read %s: %.200q", name, got)
				}
			}
			if home := strings.TrimSpace(read("home")); home == "" || home == os.Getenv("HOME") {
				t.Errorf("the agent's HOME is %q, not one of its own", home)
			} else if _, err := os.Stat(home); err == nil {
				t.Errorf("the agent's HOME %s is left after the run", home)
			}
		})
	}
}

// Files the agent made belong to the work tree's owner after the run:
// the tree is owned by a uid of its own (as a runner's checkout is the
// runner user's), the agent makes files and folders, and ralph-ci writes
// its state; afterwards every entry of the tree is that owner's.
func TestAgentUserGivesTheTreeBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ralph-ci as root only")
	}
	const owner = 4242 // no user of the machine: the tree's owner only
	base := t.TempDir()
	dir := e2e.WriteRepoAt(t, filepath.Join(base, "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"agent.sh": "cat > /dev/null\nmkdir -p new/deep && echo x > new/deep/f && echo y > top.txt && echo more >> agent.sh.copy\n" +
			"id -u > uid\necho '<promise>IMPLEMENTATION_COMPLETE</promise>'\necho RALPH_STATUS: DONE\n",
		"PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
	})
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, owner, owner)
	})
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := e2e.RunRalphArgs(t, e2e.RalphBinary(t), dir, os.Environ(), time.Minute, "--log-format", "json", "run", "--max-rotations", "2")
	if name, _ := e2e.AgentUserOf(stderr); !agentuser.InPool(name) {
		t.Fatalf("the agent did not run as a user of the pool (exit %d):\n%s\n%s", code, stdout, stderr)
	}
	if uid, _ := os.ReadFile(filepath.Join(dir, "uid")); string(uid) == "0\n" || len(uid) == 0 {
		t.Fatalf("the agent ran as uid %q", uid)
	}
	var n int
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		n++
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != owner || st.Gid != owner {
			t.Errorf("%s is %d:%d after the run, not the tree owner's %d", p, st.Uid, st.Gid, owner)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"new/deep/f", "top.txt", ".ralph/state.json"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	t.Logf("%d entries, all %d's", n, owner)
}
