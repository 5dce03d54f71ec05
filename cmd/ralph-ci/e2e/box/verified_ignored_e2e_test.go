package box

import (
	"context"
	"os"
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
			files := escapeFiles()
			files["agent.sh"] = ignoringAgent
			files["check.sh"] = "grep -q finished work.txt\n"
			w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
			w.Job("", "")
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3")
			cmd.Env = tokenInFile(t, cmd.Env)
			_ = cmd.Run()
			verified := strings.Contains(stdout.String()+stderr.String(), "all specs verified")
			_, err := os.Stat(w.Dir + "/work.txt")
			pushed := ghorigin.Git(t, w.Bare, "ls-tree", "--name-only", "refs/heads/changes")
			t.Logf("exit %d, verified %v, work.txt in the work tree: %v; pushed tree:\n%s", cmd.ProcessState.ExitCode(), verified, err == nil, pushed)
			if verified && !strings.Contains(pushed, "work.txt") {
				t.Errorf("ralph-ci pushed the spec as verified in a commit without work.txt, the file its verification read:\n%s", stdout)
			}
		})
	}
}
