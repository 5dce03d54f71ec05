//go:build linux

package box

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// linkAgent plants, in its first rotation, a symbolic link at every
// file of .ralph/ that ralph-ci, as root, writes again (the history logs
// of the rotations to come, current.log, the state's spare, the
// transcripts and progress logs, the handoffs' folder), each to a name
// in $VICTIMS, a root-only folder it cannot write: the tree, .ralph/
// included, is lent to it before each start. Its later rotations print
// what a root writing their output there would install.
const linkAgent = `cat > /dev/null
if [ "$RALPH_ITERATION" = 1 ]; then
  echo finished > work.txt
  n=0
  plant() { n=$((n+1)); rm -rf "$1" 2>/dev/null; if ln -s "$VICTIMS/link$n" "$1" 2>> "$OUT/err"; then echo "link$n $1" >> "$OUT/planted"; fi; }
  for d in .ralph/history/*/; do for i in 002 003 004 005 006; do plant "$d$i.log"; done; done
  for f in $(find .ralph -type f ! -name state.json ! -name '*.lock' ! -path '*/history/*' 2>/dev/null); do plant "$f"; done
  for f in current.log run.json guardrails.md .state.json.spare .run.json.spare report.json; do [ -L ".ralph/$f" ] || plant ".ralph/$f"; done
  for d in handoffs progress; do [ -d ".ralph/$d" ] && plant ".ralph/$d"; done
  ls -laR .ralph >> "$OUT/err" 2>&1
fi
echo "ralph-agent ALL=(ALL) NOPASSWD: ALL"
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestSudoRootWritesNoLinkTheAgentPlanted: the job's user, with
// passwordless sudo, runs run (ralph-ci makes itself root through sudo,
// and the agent a user of the pool); the agent plants links in .ralph/
// (linkAgent), two runs. ralph-ci, as root, writes nothing through them:
// the root-only folder they point into stays empty.
//
// It got through (redteam, 2 of 2 runs): root ralph-ci wrote the
// agent's own output into the history logs it planted (their target, in
// a root-only folder, held "ralph-agent ALL=(ALL) NOPASSWD: ALL"; aimed
// at /etc/ld.so.preload a first line naming the agent's library makes
// every later process load it, root's included), the state's spare and
// delivery.json too: pipeline/engine and pipeline/state open them with
// os.Create/OpenFile, which follow a link, in a .ralph/ that
// internal/agentuser lends to the agent with the rest of the tree. Now
// pipeline/agent removes every link, FIFO, socket and device from .ralph/
// once each box is emptied (agentuser.Run.Sweep), before ralph-ci writes
// there again; and every access of ralph-ci under .ralph/ goes through
// safefile's *Under helpers, which follow no link (this test passes with
// the sweep disabled too: the run then stops on the planted history log).
func TestSudoRootWritesNoLinkTheAgentPlanted(t *testing.T) {
	for run := 1; run <= 2; run++ {
		t.Run(strconv.Itoa(run), func(t *testing.T) {
			files := escapeFiles()
			files["agent.sh"] = linkAgent
			files["check.sh"] = "grep -q finished work.txt\n"
			w := newSudoRootWorld(t, "rcsl", true, files)
			out := agentDir(t)
			victims := filepath.Join(w.Base, "root-only")
			if err := os.Mkdir(victims, 0o700); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
			defer cancel()
			cmd, log := w.command(t, ctx, []string{"OUT=" + out, "VICTIMS=" + victims},
				"--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "4", "--json", ".ralph/report.json")
			_ = cmd.Run()
			planted, _ := os.ReadFile(filepath.Join(out, "planted"))
			t.Logf("exit %d; planted:\n%s", cmd.ProcessState.ExitCode(), planted)
			if !strings.Contains(log.String(), "runs itself as root through passwordless sudo") || !strings.Contains(string(planted), "history/") {
				errs, _ := os.ReadFile(filepath.Join(out, "err"))
				t.Fatalf("the attack did not run as planned:\n%s\n%s", errs, log)
			}
			entries, _ := os.ReadDir(victims)
			for _, e := range entries {
				raw, _ := os.ReadFile(filepath.Join(victims, e.Name()))
				t.Errorf("ralph-ci, as root, wrote %s through a link the agent planted: %.200q", e.Name(), raw)
			}
		})
	}
}

// TestSudoRootRestoresNoCredentialThroughALink: actions/checkout left its
// token in .git/config (persist-credentials), which ralph-ci hides while
// agents run and puts back at the end, as root. The agent, which has the
// tree, makes .git/config a link into a root-only folder: ralph-ci puts
// nothing there (git's config writes follow a link), and the log says
// why.
func TestSudoRootRestoresNoCredentialThroughALink(t *testing.T) {
	files := escapeFiles()
	files["agent.sh"] = "cat > /dev/null\ncp .git/config \"$OUT/config\" 2>/dev/null\nrm -f .git/config && ln -s \"$VICTIMS/config\" .git/config && echo planted > \"$OUT/planted\"\n" +
		"echo finished > work.txt\necho '- [x] work.txt says finished'\necho '<promise>IMPLEMENTATION_COMPLETE</promise>'\necho 'RALPH_STATUS: DONE'\n"
	files["check.sh"] = "grep -q finished work.txt\n"
	w := newSudoRootWorld(t, "rcsg", true, files)
	out := agentDir(t)
	victims := filepath.Join(w.Base, "root-only")
	if err := os.Mkdir(victims, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd, log := w.command(t, ctx, []string{"OUT=" + out, "VICTIMS=" + victims}, "--log-format", "json", "run", "--max-rotations", "1")
	_ = cmd.Run()
	if planted, _ := os.ReadFile(filepath.Join(out, "planted")); len(planted) == 0 || !strings.Contains(log.String(), "runs itself as root") {
		t.Fatalf("the attack did not run as planned:\n%s", log)
	}
	entries, _ := os.ReadDir(victims)
	for _, e := range entries {
		raw, _ := os.ReadFile(filepath.Join(victims, e.Name()))
		t.Errorf("ralph-ci, as root, wrote %s through the agent's .git/config link: %.200q", e.Name(), raw)
	}
	if !strings.Contains(log.String(), "is a symbolic link: ralph-ci does not write through one") {
		t.Errorf("the log does not say why the credential was not put back:\n%s", log)
	}
}
