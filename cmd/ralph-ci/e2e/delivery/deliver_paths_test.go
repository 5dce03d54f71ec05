package delivery

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// The working tree as the job and the agent leave it, in the simulated
// pull_request job: ralph-ci started with -C and a relative folder, and
// untracked links the agent leaves to /dev/zero and to a FIFO, which
// ralph-ci reads through the bounded, non-blocking reader.

// TestDeliveryFromARelativeDir: `ralph-ci -C <relative dir> run --deliver
// pr` saves and pushes its state like a run started in the folder (every
// path handed to git holds from git's own folder).
func TestDeliveryFromARelativeDir(t *testing.T) {
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles)
	w.Job("", "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"-C", filepath.Base(w.Dir), "run", "--deliver", "pr", "--max-rotations", "2"}
	cmd, o, e := w.Command(ctx, args...)
	cmd.Dir = filepath.Dir(w.Dir)
	w.Exit(3, cmd.Run(), args, o, e)
	if strings.Contains(e.String(), "could not hide") {
		t.Fatalf("the checkout's credential stayed in reach of the agent:\n%s", e)
	}
	head := w.Rev("refs/heads/changes")
	if st := w.Rev(deliver.StateRef("changes")); st == "" || w.Rev(st+"^1") != head {
		t.Fatalf("state ref %q does not describe the pushed head %s", st, head)
	}
}

// hostileAgent leaves, in its first rotation, untracked links to
// /dev/zero and to a FIFO nobody writes, beside its work; then it claims
// DONE with the promise.
const hostileAgent = `prompt=$(cat)
if [ "$RALPH_ITERATION" = 1 ]; then
  ln -s /dev/zero zero.txt
  mkfifo "$PROMPTS/../fifo" && ln -s "$PROMPTS/../fifo" fifo.txt
  echo work > work.txt
fi
printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestDeliveryHostileLinks: the run reads past the links (the
// unfinished-work layer reads the files the loop added) in bounded time
// and memory, and delivers: no hang on the FIFO, no read of /dev/zero
// until memory runs out. ralph-ci runs under an address-space limit of
// 2 GB (what a read of /dev/zero reaches in a second), so that such a read
// fails the run, and the test, instead of the machine.
func TestDeliveryHostileLinks(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["specs/a.spec.md"] = "# A\n"
	files["agent.sh"] = hostileAgent
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	w.Job("", "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"run", "--deliver", "pr"}
	cmd, o, e := w.Command(ctx, args...)
	cmd.Args = append([]string{"sh", "-c", `ulimit -v 2000000 && exec "$0" "$@"`, w.Bin}, args...)
	cmd.Path = "/bin/sh"
	start := time.Now()
	w.Exit(0, cmd.Run(), args, o, e)
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the run took %s", took)
	}
	if w.Rev("refs/heads/changes:work.txt") == "" {
		t.Fatal("the work was not delivered")
	}
}
