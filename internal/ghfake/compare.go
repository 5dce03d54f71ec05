package ghfake

import (
	"net/http"
	"strings"
)

// compare answers GET /repos/{owner}/{repo}/compare/{base}...{head}: its
// status ("identical", "ahead" when base is an ancestor of head, else
// "diverged"), from Ancestor; without Ancestor, only identical commits
// compare as anything but diverged.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok || base == "" || head == "" {
		s.unexpected(w, r)
		return
	}
	status, ahead := "diverged", 1
	switch {
	case base == head:
		status, ahead = "identical", 0
	case s.Ancestor != nil && s.Ancestor(base, head):
		status = "ahead"
	}
	s.json(w, 200, shape("commit-comparison", map[string]any{"status": status, "ahead_by": ahead, "behind_by": 0,
		"total_commits": ahead, "commits": []any{}, "files": []any{}}))
}
