package ghfake

import "net/http"

// getCommit answers GET /repos/{owner}/{repo}/commits/{ref} with the
// commit's sha and message (MessageFrom), 404 for one it does not know.
func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	sha := r.PathValue("ref")
	msg, ok := "", false
	if s.MessageFrom != nil {
		msg, ok = s.MessageFrom(sha)
	}
	if !ok {
		s.error(w, 404, "No commit found for SHA: "+sha)
		return
	}
	s.json(w, 200, shape("commit", map[string]any{"sha": sha, "commit": map[string]any{"message": msg}, "files": []any{}}))
}
