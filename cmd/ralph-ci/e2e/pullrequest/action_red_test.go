package pullrequest

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// Jobs that tell the truth (issue 27): beside waiting, which ends the
// step green, a limit stays red in the Action, and the exit-code output
// says which (3).
func TestActionStepStaysRedOnALimit(t *testing.T) {
	w := newPRWorld(t, e2e.RalphBinary(t))
	res := w.ActionStep(map[string]string{"command": "run", "deliver": "none", "max-rotations": "1"})
	if res.Err == nil || res.Outputs["exit-code"] != "3" || res.Outputs["status"] != "limits" {
		t.Fatalf("run stopped by a limit: step error %v, exit-code %q, status %q; want red with 3 and limits\n%s",
			res.Err, res.Outputs["exit-code"], res.Outputs["status"], res.Output)
	}
}
