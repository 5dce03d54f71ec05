package e2e

import (
	"strings"

	"github.com/ralph-ci/ralph-ci/github/prchannel"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// ProgressOf are the progress comments on the pull request.
func (w *PRWorld) ProgressOf() []fake.Comment {
	var out []fake.Comment
	comments, _ := w.Srv.Snapshot()
	for _, c := range comments {
		if strings.HasPrefix(c.Body, prchannel.ProgressMarker) {
			out = append(out, c)
		}
	}
	return out
}
