package prcommenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// Pull is a pull request opened through the API (not the one of New).
type Pull struct {
	Number      int
	Title, Body string
	Head, Base  string // branch names
}

var (
	rePulls     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls$`)
	rePullsEdit = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`)
)

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
	return map[string]any{"number": p.Number, "state": "open", "title": p.Title, "body": p.Body,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.Owner, s.Repo, p.Number),
		"head":     map[string]any{"ref": p.Head, "label": s.Owner + ":" + p.Head, "repo": s.repoJSON()},
		"base":     map[string]any{"ref": p.Base, "repo": s.repoJSON()}}
}

// servePulls answers the pulls API for the pull requests of Pulls: list
// (GET, by head "owner:branch" and base), create (POST) and update (PATCH
// of title and body). It reports whether the request was one of them.
func (s *Server) servePulls(w http.ResponseWriter, r *http.Request) bool {
	switch m := match(r.URL.Path); {
	case r.Method == "GET" && m(rePulls) != nil && s.repo(m(rePulls)):
		q := r.URL.Query()
		out := []any{}
		for _, p := range s.Pulls {
			if (q.Get("head") == "" || q.Get("head") == s.Owner+":"+p.Head) && (q.Get("base") == "" || q.Get("base") == p.Base) {
				out = append(out, s.pullJSON(p))
			}
		}
		s.json(w, 200, out)
	case r.Method == "POST" && m(rePulls) != nil && s.repo(m(rePulls)):
		var in struct{ Title, Body, Head, Base string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Head == "" || in.Base == "" || in.Title == "" {
			s.error(w, 422, "Validation Failed")
			return true
		}
		for _, p := range s.Pulls {
			if p.Head == in.Head && p.Base == in.Base {
				s.error(w, 422, "A pull request already exists for "+s.Owner+":"+in.Head+".")
				return true
			}
		}
		p := Pull{Number: s.PR + 100 + len(s.Pulls), Title: in.Title, Body: in.Body, Head: strings.TrimPrefix(in.Head, s.Owner+":"), Base: in.Base}
		s.Pulls = append(s.Pulls, p)
		s.json(w, 201, s.pullJSON(p))
	case r.Method == "PATCH" && m(rePullsEdit) != nil && s.repo(m(rePullsEdit)) && atoi(m(rePullsEdit)[3]) != s.PR:
		n := atoi(m(rePullsEdit)[3])
		for i := range s.Pulls {
			if s.Pulls[i].Number == n {
				var in struct{ Title, Body *string }
				if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
					s.error(w, 422, "Validation Failed")
					return true
				}
				if in.Title != nil {
					s.Pulls[i].Title = *in.Title
				}
				if in.Body != nil {
					s.Pulls[i].Body = *in.Body
				}
				s.json(w, 200, s.pullJSON(s.Pulls[i]))
				return true
			}
		}
		s.error(w, 404, "Not Found")
	default:
		return false
	}
	return true
}

// OpenedPulls returns a copy of Pulls.
func (s *Server) OpenedPulls() []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Pull(nil), s.Pulls...)
}
