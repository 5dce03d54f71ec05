package ghfake

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
)

// OpenPull is an open pull request of the repository besides the one of
// New (PR), with the same base: a sweep over the open pull requests
// (check on a schedule) reads them all.
type OpenPull struct {
	Number       int
	Head, Author string
}

// AddPull opens another pull request with head commit head by author.
func (s *Server) AddPull(number int, head, author string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.others = append(s.others, OpenPull{Number: number, Head: head, Author: author})
}

// AddCommentOn adds a comment by user on pull request pr and returns its
// id (ids are one sequence over all pull requests, as on GitHub).
func (s *Server) AddCommentOn(pr int, user User, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(pr, user, body)
}

// CommentsOn returns copies of the comments on pull request pr.
func (s *Server) CommentsOn(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commentsOn(pr)
}

func (s *Server) commentsOn(pr int) []Comment {
	out := []Comment{}
	for _, c := range s.Comments {
		if c.Issue == pr {
			out = append(out, c)
		}
	}
	return out
}

// pulls are the open pull requests, oldest (lowest number) first.
func (s *Server) pulls() []OpenPull {
	all := append([]OpenPull{{Number: s.PR, Head: s.Head, Author: s.Author}}, s.others...)
	slices.SortFunc(all, func(a, b OpenPull) int { return a.Number - b.Number })
	return all
}

func (s *Server) isPull(n int) bool { return s.pull(n).Number != 0 }

func (s *Server) pull(n int) OpenPull {
	for _, p := range s.pulls() {
		if p.Number == n {
			return p
		}
	}
	return OpenPull{}
}

// openPullJSON is an open pull request as the pulls API shows it; New's
// follows HeadFrom and HeadRef (delivery), the others' head branch is
// pr-<number>.
func (s *Server) openPullJSON(p OpenPull) map[string]any {
	head, ref, headRepo := p.Head, fmt.Sprintf("pr-%d", p.Number), s.repoJSON()
	if p.Number == s.PR {
		head, ref = s.head(), cmp.Or(s.HeadRef, "feature")
		if s.HeadRepo != "" {
			headRepo = map[string]any{"full_name": s.HeadRepo, "default_branch": s.BaseRef, "clone_url": cmp.Or(s.HeadCloneURL, "https://github.com/"+s.HeadRepo+".git")}
		}
	}
	return map[string]any{"number": p.Number, "state": "open", "requested_teams": []any{}, "html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.Owner, s.Repo, p.Number),
		"head": map[string]any{"sha": head, "ref": ref, "repo": headRepo},
		"base": map[string]any{"sha": s.BaseSHA, "ref": s.BaseRef, "repo": s.repoJSON()}, "user": User{Login: p.Author, ID: 1, Type: "User"}}
}

// combinedStatus answers GET /repos/{owner}/{repo}/commits/{ref}/status:
// the latest status of each context on the commit, and their combined
// state (failure if any failed, else pending if any is, else success).
func (s *Server) combinedStatus(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	sha := r.PathValue("ref")
	latest := map[string]Status{}
	var contexts []string
	for _, st := range s.Statuses {
		if st.SHA != sha {
			continue
		}
		if _, seen := latest[st.Context]; !seen {
			contexts = append(contexts, st.Context)
		}
		latest[st.Context] = st
	}
	state, statuses := "success", []Status{}
	for _, c := range contexts {
		st := latest[c]
		statuses = append(statuses, st)
		switch {
		case st.State == "failure" || st.State == "error":
			state = "failure"
		case st.State == "pending" && state == "success":
			state = "pending"
		}
	}
	if len(statuses) == 0 {
		state = "pending"
	}
	s.json(w, 200, shape("combined-commit-status", map[string]any{"state": state, "sha": sha, "total_count": len(statuses), "statuses": statuses}))
}

// SetStatus sets a commit status on sha, as a run that presented a
// checkpoint leaves it.
func (s *Server) SetStatus(sha, context, state, description string) {
	s.AddStatus(Status{SHA: sha, State: state, Description: description, Context: context})
}

// AddStatus adds st as set now, by the token (Self) unless st names its
// Creator.
func (s *Server) AddStatus(st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.CreatedAt = s.now()
	if st.Creator.Login == "" {
		st.Creator = s.self()
	}
	s.Statuses = append(s.Statuses, st)
}

// listPullCommits answers GET /repos/{owner}/{repo}/pulls/{number}/commits:
// the pull request's commits, oldest first, paginated. New's are its
// heads so far (see SetHead, SetCommits; with HeadFrom, its answer last),
// AddPull's its one head, and one opened through the API none.
func (s *Server) listPullCommits(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	p := s.pull(atoi(r.PathValue("number")))
	var shas []string // one opened through the API (Pulls): none known
	if p.Head != "" {
		shas = []string{p.Head}
	}
	if p.Number == s.PR {
		shas = append([]string{}, s.commits...)
		if h := s.head(); shas[len(shas)-1] != h {
			shas = append(shas, h)
		}
	}
	out := []map[string]any{}
	for _, sha := range shas {
		if sha == "" { // no head yet (a branch not pushed)
			continue
		}
		out = append(out, map[string]any{"sha": sha, "commit": map[string]any{"message": "commit " + sha}})
	}
	paginate(s, w, r, "commit-items", out)
}
