package sudoroot

import (
	"os"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// ancestor finds the parent and the parent's parent, never the process
// itself.
func TestAncestor(t *testing.T) {
	if !ancestor(os.Getppid(), 3) {
		t.Error("the parent is not an ancestor")
	}
	if gp, _ := procs.Parent(os.Getppid()); gp > 1 && !ancestor(gp, 3) {
		t.Error("the parent's parent is not an ancestor")
	}
	if ancestor(os.Getpid(), 3) {
		t.Error("this process is its own ancestor")
	}
}
