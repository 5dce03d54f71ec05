package gate

import (
	"fmt"
	"strings"
)

// A merge queue tests a temporary commit, the group's head, that merges
// one or more pull requests onto the base; required statuses must be set
// on it. No agent runs there: the group passes when every pull request
// in it had the one `ralph-ci` status success on the head the group
// contains, so that what merges is exactly what was verified and
// approved.

// Member is a pull request of a merge group, or the one the group is
// named after (its head_ref says pr-N).
type Member struct {
	PR   int
	Head string // its head commit now
	// Contained is true when the group's commit contains Head.
	Contained bool
	// Gate is the state of ralph-ci's own `ralph-ci` status on Head
	// ("" when there is none).
	Gate string
}

// QueueVerdict is the `ralph-ci` status of a merge group's commit.
func QueueVerdict(members []Member) Verdict {
	var in, why []string
	for _, m := range members {
		switch {
		case !m.Contained:
			why = append(why, fmt.Sprintf("#%d's head %.7s moved: the group holds an older commit of it", m.PR, m.Head))
		case m.Gate != Success:
			why = append(why, fmt.Sprintf("#%d has no ralph-ci success at %.7s (%s)", m.PR, m.Head, orNone(m.Gate)))
		default:
			in = append(in, fmt.Sprintf("#%d", m.PR))
		}
	}
	switch {
	case len(why) > 0:
		return Verdict{Failure, oneLine(strings.Join(why, "; "))}
	case len(in) == 0:
		return Verdict{Failure, "no pull request of the merge group was found"}
	}
	return Verdict{Success, oneLine("every pull request of the group approved at the head it holds: " + strings.Join(in, ", "))}
}

func orNone(state string) string {
	if state == "" {
		return "none"
	}
	return state
}
