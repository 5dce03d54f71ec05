//go:build linux

package box

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// ignoringAgent writes the work the spec asks for, and a .gitignore
// line that keeps it out of every commit: the verification reads it
// from the work tree, the commit ralph-ci makes of the verified tree
// has no work.txt.
const ignoringAgent = `cat > /dev/null
echo finished > work.txt
grep -qx work.txt .gitignore || echo work.txt >> .gitignore
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestVerifiedWorkIsInTheCommit: the agent makes its work ignored by
// git (a line of .gitignore, which it may edit like any file); two runs.
// What ralph-ci pushes as verified holds the files the verification
// read: either the pushed commit has work.txt, or the spec is not
// verified there.
//
// It got through (redteam, 2 of 2 runs, any box): ralph-ci staged the
// tree to verify with git add --all, which honours the .gitignore the
// agent edited, while the verification reads the whole work tree; it
// pushed "all specs verified" (exit 0) in a commit whose only change was
// the .gitignore line. Now a rotation that changes a .gitignore has the
// files its new rules ignore but the old rules did not staged anyway
// (pipeline/deliver's Session.Tree), so work.txt is in the verified tree
// and the commit.
func TestVerifiedWorkIsInTheCommit(t *testing.T) {
	bin := e2e.RalphBinary(t)
	for run := 1; run <= 2; run++ {
		t.Run(strconv.Itoa(run), func(t *testing.T) {
			w, code, stdout, stderr := ignoreRun(t, bin, ignoringAgent, "grep -q finished work.txt\n")
			verified := strings.Contains(stdout.String()+stderr.String(), "all specs verified")
			_, err := os.Stat(w.Dir + "/work.txt")
			pushed := ghorigin.Git(t, w.Bare, "ls-tree", "--name-only", "refs/heads/changes")
			t.Logf("exit %d, verified %v, work.txt in the work tree: %v; pushed tree:\n%s", code, verified, err == nil, pushed)
			if verified && !strings.Contains(pushed, "work.txt") {
				t.Errorf("ralph-ci pushed the spec as verified in a commit without work.txt, the file its verification read:\n%s", stdout)
			}
		})
	}
}

// homeIgnoringAgent writes its work and a git ignore rule for it where
// git reads one by default outside the tree: HOME_DIR/.config/git/ignore
// and XDG_DIR/git/ignore (ralph-ci's HOME and XDG_CONFIG_HOME, which a
// non-root agent sharing ralph-ci's user may write), and its own
// $HOME/.config/git/ignore. The tree holds no ignore rule at all.
const homeIgnoringAgent = `cat > /dev/null
echo finished > work.txt
for f in HOME_DIR/.config/git/ignore XDG_DIR/git/ignore "$HOME/.config/git/ignore"; do
  mkdir -p "$(dirname "$f")" && echo work.txt >> "$f"
done
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestVerifiedWorkIsInTheCommitWhateverHOMEIgnores: the agent ignores
// its work through git's files outside the tree (~/.config/git/ignore,
// $XDG_CONFIG_HOME/git/ignore of the HOME ralph-ci runs with, made
// writable to the agent as a non-root agent's HOME is): the verified
// spec's commit holds work.txt.
func TestVerifiedWorkIsInTheCommitWhateverHOMEIgnores(t *testing.T) {
	bin := e2e.RalphBinary(t)
	home := agentDir(t)
	xdg := filepath.Join(home, "xdg")
	agent := strings.NewReplacer("HOME_DIR", home, "XDG_DIR", xdg).Replace(homeIgnoringAgent)
	w, code, stdout, stderr := ignoreRun(t, bin, agent, "grep -q finished work.txt\n", "HOME="+home, "XDG_CONFIG_HOME="+xdg)
	if b, err := os.ReadFile(filepath.Join(home, ".config", "git", "ignore")); err != nil || !strings.Contains(string(b), "work.txt") {
		t.Fatalf("the agent wrote no rule into ralph-ci's HOME (%v): the test shows nothing\n%s\n%s", err, stdout, stderr)
	}
	pushed := ghorigin.Git(t, w.Bare, "ls-tree", "--name-only", "refs/heads/changes")
	if !strings.Contains(stdout.String()+stderr.String(), "all specs verified") {
		t.Fatalf("the run did not verify the spec (exit %d):\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(pushed, "work.txt") {
		t.Errorf("ralph-ci pushed the spec as verified in a commit without work.txt, the file its verification read:\n%s", pushed)
	}
}

// buildingAgent builds output the verification does not need and adds
// an honest rule for it.
const buildingAgent = `cat > /dev/null
echo finished > work.txt
mkdir -p build && echo object > build/out.o
grep -qx build/ .gitignore || echo build/ >> .gitignore
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestHonestIgnoreRuleIsAccepted: an agent that adds `build/` to
// .gitignore after building into it gets its claim verified (exit 0),
// its work pushed, and the log names what was committed though ignored.
func TestHonestIgnoreRuleIsAccepted(t *testing.T) {
	bin := e2e.RalphBinary(t)
	w, code, stdout, stderr := ignoreRun(t, bin, buildingAgent, "grep -q finished work.txt\n")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	log := stdout.String() + stderr.String()
	if !strings.Contains(log, "all specs verified") {
		t.Fatalf("the honest claim was not verified:\n%s", log)
	}
	if !strings.Contains(log, "committed though ignored: build/out.o") {
		t.Errorf("the log does not name the file committed though ignored:\n%s", log)
	}
	pushed := ghorigin.Git(t, w.Bare, "ls-tree", "-r", "--name-only", "refs/heads/changes")
	for _, want := range []string{"work.txt", ".gitignore", "build/out.o"} {
		if !strings.Contains(pushed, want) {
			t.Errorf("the pushed commit lacks %s:\n%s", want, pushed)
		}
	}
}

// selfIgnoringAgent hides its work behind a new .gitignore that ignores
// itself: no changed path of the rotation names a .gitignore.
const selfIgnoringAgent = `cat > /dev/null
mkdir -p sub && echo finished > sub/work.txt && printf '*\n' > sub/.gitignore
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestVerifiedWorkIsInTheCommitBehindAHiddenRule: sub/.gitignore of "*"
// (it ignores itself) and sub/work.txt, which the verification reads:
// got through (verified, exit 0, pushed without sub/) until ralph-ci
// looked for a .gitignore git ignores before each verification.
func TestVerifiedWorkIsInTheCommitBehindAHiddenRule(t *testing.T) {
	bin := e2e.RalphBinary(t)
	w, _, stdout, stderr := ignoreRun(t, bin, selfIgnoringAgent, "grep -q finished sub/work.txt\n")
	pushed := ghorigin.Git(t, w.Bare, "ls-tree", "-r", "--name-only", "refs/heads/changes")
	if strings.Contains(stdout.String()+stderr.String(), "all specs verified") && !strings.Contains(pushed, "sub/work.txt") {
		t.Errorf("ralph-ci pushed the spec as verified in a commit without sub/work.txt, the file its verification read:\n%s", pushed)
	}
}

// ignoreRun runs three delivering rotations (run --deliver pr) of agent,
// whose work check verifies, in a pull request's CI job against an HTTP
// origin that asks for the token (handed in a file), with env added to
// the job's environment: the world, the run's exit code, its stdout and
// its stderr.
func ignoreRun(t *testing.T, bin, agent, check string, env ...string) (w *e2e.CIWorld, code int, stdout, stderr *bytes.Buffer) {
	t.Helper()
	files := escapeFiles()
	files["agent.sh"] = agent
	files["check.sh"] = check
	w = e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
	w.ExtraEnv = append(w.ExtraEnv, env...)
	w.Job("", "")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3")
	cmd.Env = tokenInFile(t, cmd.Env)
	if err := cmd.Run(); cmd.ProcessState == nil {
		t.Fatalf("run: %v", err)
	}
	return w, cmd.ProcessState.ExitCode(), stdout, stderr
}
