package deliver

import (
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/ghevent"
)

// Event is the job's GitHub Actions event, read with go-github's types
// (internal/ghevent).
type Event = ghevent.Event

// ForkRunCommand and ForkRunLabel are how a person with write access asks
// ralph-ci to run on a fork's pull request: a comment that starts with
// the command, or the label.
const (
	ForkRunCommand = "/ralph-ci run"
	ForkRunLabel   = "ralph-ci run"
)

// LoopCommit tells whether a commit message is one of the loop's own
// commits: its trailers (the last paragraph) name a spec (Ralph-Spec:).
func LoopCommit(message string) bool {
	paras := strings.Split(strings.TrimSpace(strings.ReplaceAll(message, "\r\n", "\n")), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), loopTrailerKey) && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}
