//go:build unix

package agent

import (
	"context"
	"io"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// TestRunWithoutABoxKeepsEverySweep runs an agent without a box that
// leaves a process behind: nothing can say that process is gone, so from
// then on every git command must sweep ralph-ci's git folder and check the
// checkout (internal/git.Untrusted with gone false), as a survivor may
// plant there between two of them.
func TestRunWithoutABoxKeepsEverySweep(t *testing.T) {
	_, err := Run(context.Background(), Invocation{
		Argv:   sh(`sleep 0.2 </dev/null >/dev/null 2>&1 & echo started`),
		Dir:    t.TempDir(),
		Output: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	if git.Calm() {
		t.Fatal("after an agent without a box, git counts on no survivor and skips its sweeps")
	}
}
