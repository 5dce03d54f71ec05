package gate

import (
	"fmt"

	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Delivered is the merge gate's rule for delivery pr on a pull request:
// the loop's state saved in git for the head branch (found, describing
// commit described) must describe the pull request's head, with every
// spec verified 3/3 there. It returns why not, nothing when it holds:
// state saved for an older commit (a person pushed since) does not count.
func Delivered(specs []plan.Spec, st *state.State, found bool, described, branch, head string) []string {
	switch {
	case !found:
		return []string{"no loop state was delivered for the branch " + branch}
	case described != head:
		return []string{fmt.Sprintf("the loop's state describes commit %.7s, the pull request is at %.7s", described, head)}
	}
	var why []string
	for _, sp := range specs {
		if ss := st.Spec(sp.Path); ss == nil || !ss.Verified(sp.Hash) {
			why = append(why, sp.Path+" is not verified 3/3")
		}
	}
	return why
}
