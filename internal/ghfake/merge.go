package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// Protect makes the pull request's base branch protected: a pull request
// merges only when each of contexts is success on its head (the newest
// status of each), as branch protection's required status checks (or a
// ruleset's) do.
func (s *Server) Protect(contexts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.required = append([]string{}, contexts...)
}

// Merged tells whether New's pull request was merged, and at which head.
func (s *Server) Merged() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.merged != "", s.merged
}

// mergePull answers PUT /repos/{owner}/{repo}/pulls/{number}/merge for
// New's pull request: 405 when a required context is not success on its
// head (GitHub's message names it), 409 when the body's sha is not the
// head, else the merge.
func (s *Server) mergePull(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	if atoi(r.PathValue("number")) != s.PR {
		s.unexpected(w, r)
		return
	}
	var in struct {
		SHA         string `json:"sha"`
		MergeMethod string `json:"merge_method"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			s.error(w, 422, "Validation Failed")
			return
		}
	}
	head := s.head()
	switch {
	case s.merged != "":
		s.error(w, 405, "Pull Request is not mergeable")
		return
	case in.SHA != "" && in.SHA != head:
		s.error(w, 409, "Head branch was modified. Review and try the merge again.")
		return
	}
	for _, c := range s.required {
		if st := s.latest(head, c); st != "success" {
			why := "is expected"
			if st != "" {
				why = "is " + st
			}
			s.error(w, 405, fmt.Sprintf("Required status check %q %s.", c, why))
			return
		}
	}
	s.merged = head
	s.json(w, 200, shape("pull-request-merge-result-response-if-merge-was-successful",
		map[string]any{"sha": head, "merged": true, "message": "Pull Request successfully merged"}))
}

// latest is the state of the newest status of context on sha ("" none);
// s.mu is held.
func (s *Server) latest(sha, context string) string {
	for _, st := range slices.Backward(s.Statuses) {
		if st.SHA == sha && st.Context == context {
			return st.State
		}
	}
	return ""
}
