//go:build linux

package box

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// plantAgent is the agent of a run where ralph-ci is not root: it runs
// as ralph-ci's own user (no user of its own without root), Landlock
// keeping it out of every folder but the work tree. In its first
// rotation it puts, at the files of .ralph/ that ralph-ci writes or
// reads again, a link ($MODE link: into $VICTIMS, a folder of ralph-ci's
// user the agent cannot write, as ralph-ci's git folder; guardrails.md
// to $SECRET, a 0600 file of that user) or a FIFO ($MODE fifo). Every
// rotation keeps its prompt in $OUT.
const plantAgent = `cat > "$OUT/prompt-$RALPH_ITERATION"
if [ "$RALPH_ITERATION" = 1 ]; then
  echo finished > work.txt
  plant() { rm -rf "$1" 2>/dev/null; if [ "$MODE" = fifo ]; then mkfifo "$1"; else ln -s "$2" "$1"; fi 2>> "$OUT/err" && echo "$1" >> "$OUT/planted"; }
  n=0
  for d in .ralph/history/*/; do for i in 002 003 004; do n=$((n+1)); plant "$d$i.log" "$VICTIMS/link$n"; done; done
  for f in current.log .state.json.spare delivery.json; do n=$((n+1)); plant ".ralph/$f" "$VICTIMS/link$n"; done
  plant .ralph/guardrails.md "$SECRET"
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestNonRootWritesNoLinkTheAgentPlanted: ralph-ci runs as a user
// without sudo, the agent as the same user. The agent plants links in
// .ralph/ into a folder of that user's it cannot write (Landlock), and
// makes guardrails.md a link to a file only that user reads; or it
// plants FIFOs there. ralph-ci writes nothing through a link, puts no
// byte of the file into a prompt, never hangs on a FIFO, and its log
// names what it refused.
func TestNonRootWritesNoLinkTheAgentPlanted(t *testing.T) {
	for _, mode := range []string{"link", "fifo"} {
		t.Run(mode, func(t *testing.T) {
			files := escapeFiles()
			files["agent.sh"] = plantAgent
			files["check.sh"] = "grep -q finished work.txt\n"
			w := newSudoRootWorld(t, "rcnl", false, files)
			out := agentDir(t)
			victims := filepath.Join(w.Base, "victims")
			secret := filepath.Join(w.Base, "secret")
			if err := os.Mkdir(victims, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(secret, []byte("only-the-user-reads-this"), 0o600); err != nil {
				t.Fatal(err)
			}
			e2e.ChownTree(t, victims, w.U)
			e2e.ChownTree(t, secret, w.U)
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
			defer cancel()
			cmd, log := w.command(t, ctx, []string{"OUT=" + out, "VICTIMS=" + victims, "SECRET=" + secret, "MODE=" + mode},
				"--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "4")
			_ = cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("ralph-ci hung on what the agent planted:\n%s", log)
			}
			planted, _ := os.ReadFile(filepath.Join(out, "planted"))
			t.Logf("exit %d; planted:\n%s", cmd.ProcessState.ExitCode(), planted)
			if strings.Contains(log.String(), "runs itself as root") || !strings.Contains(string(planted), "history/") {
				errs, _ := os.ReadFile(filepath.Join(out, "err"))
				t.Fatalf("the attack did not run as planned:\n%s\n%s", errs, log)
			}
			entries, _ := os.ReadDir(victims)
			for _, e := range entries {
				raw, _ := os.ReadFile(filepath.Join(victims, e.Name()))
				t.Errorf("ralph-ci wrote %s through a link the agent planted: %.200q", e.Name(), raw)
			}
			prompts, _ := filepath.Glob(filepath.Join(out, "prompt-*"))
			for _, p := range prompts {
				if raw, _ := os.ReadFile(p); strings.Contains(string(raw), "only-the-user-reads-this") {
					t.Errorf("%s holds the file the agent's guardrails.md link names", filepath.Base(p))
				}
			}
			want := map[string]string{"link": "symbolic link, which ralph-ci does not follow", "fifo": "not a regular file"}[mode]
			if !strings.Contains(log.String(), want) || !strings.Contains(log.String(), ".ralph/") {
				t.Errorf("the log does not name what ralph-ci refused (%q):\n%s", want, log)
			}
		})
	}
}
