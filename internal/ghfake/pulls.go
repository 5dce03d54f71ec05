package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Pull is a pull request opened through the API (not the one of New).
type Pull struct {
	Number      int
	Title, Body string
	Head, Base  string // branch names
}

// head is the pull request's head: HeadFrom's answer when set.
func (s *Server) head() string {
	if s.HeadFrom != nil {
		return s.HeadFrom()
	}
	return s.Head
}

func (s *Server) repoJSON() map[string]any {
	return map[string]any{"full_name": s.Owner + "/" + s.Repo, "default_branch": s.BaseRef}
}

func (s *Server) pullJSON(p Pull) map[string]any {
	return map[string]any{"number": p.Number, "state": "open", "title": p.Title, "body": p.Body, "requested_teams": []any{},
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.Owner, s.Repo, p.Number),
		"head":     map[string]any{"ref": p.Head, "label": s.Owner + ":" + p.Head, "repo": s.repoJSON()},
		"base":     map[string]any{"ref": p.Base, "repo": s.repoJSON()}}
}

// listPulls answers GET /repos/{owner}/{repo}/pulls?state=open: the
// open pull requests (New's, AddPull's, then those opened through the
// API), oldest first and paginated, those whose head ("owner:branch")
// and base match the query when it names them.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	q := r.URL.Query()
	if q.Get("state") != "open" {
		s.unexpected(w, r)
		return
	}
	matches := func(head, base string) bool {
		return (q.Get("head") == "" || q.Get("head") == s.Owner+":"+head) && (q.Get("base") == "" || q.Get("base") == base)
	}
	out := []map[string]any{}
	for _, p := range s.pulls() {
		j := s.openPullJSON(p)
		if matches(j["head"].(map[string]any)["ref"].(string), s.BaseRef) {
			out = append(out, j)
		}
	}
	for _, p := range s.Pulls {
		if matches(p.Head, p.Base) {
			out = append(out, s.pullJSON(p))
		}
	}
	paginate(s, w, r, "pull-request-simple-items", out)
}

// createPull answers POST /repos/{owner}/{repo}/pulls; a second pull
// request for the same head and base is refused with 422, as GitHub does.
func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	var in struct{ Title, Body, Head, Base string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Head == "" || in.Base == "" || in.Title == "" {
		s.error(w, 422, "Validation Failed")
		return
	}
	head := strings.TrimPrefix(in.Head, s.Owner+":")
	for _, p := range s.Pulls {
		if p.Head == head && p.Base == in.Base {
			s.error(w, 422, "A pull request already exists for "+s.Owner+":"+head+".")
			return
		}
	}
	p := Pull{Number: s.PR + 100 + len(s.Pulls), Title: in.Title, Body: in.Body, Head: head, Base: in.Base}
	s.Pulls = append(s.Pulls, p)
	s.json(w, 201, shape("pull-request", s.pullJSON(p)))
}

// editPull answers PATCH /repos/{owner}/{repo}/pulls/{id} for one of
// Pulls: a new title and body.
func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	n := atoi(r.PathValue("id"))
	for i := range s.Pulls {
		if s.Pulls[i].Number != n {
			continue
		}
		var in struct{ Title, Body *string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			s.error(w, 422, "Validation Failed")
			return
		}
		if in.Title != nil {
			s.Pulls[i].Title = *in.Title
		}
		if in.Body != nil {
			s.Pulls[i].Body = *in.Body
		}
		s.json(w, 200, shape("pull-request", s.pullJSON(s.Pulls[i])))
		return
	}
	s.unexpected(w, r)
}

// OpenedPulls returns a copy of Pulls.
func (s *Server) OpenedPulls() []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Pull(nil), s.Pulls...)
}
