// Package prcommenttest is an in-process fake of the GitHub REST API
// endpoints ralph-ci's checkpoints use, speaking GitHub's documented JSON:
// pulls, issue comments (paginated with Link headers), comment reactions
// (paginated), collaborator permission, commit statuses, /user and the
// repository contents of a file at a ref (the base commit's config). It
// keeps state, fails the test on any unexpected route, and can inject
// faults (429, 5xx) and refuse writes (a read-only token).
package prcommenttest

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PageSize is the fake's page size, small to exercise pagination.
const PageSize = 2

// User is a GitHub account.
type User struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	Type  string `json:"type"` // User or Bot
}

// Bot is the identity of a GITHUB_TOKEN's comments.
var Bot = User{Login: "github-actions[bot]", ID: 41898282, Type: "Bot"}

// Comment is an issue comment.
type Comment struct {
	ID        int64     `json:"id"`
	Body      string    `json:"body"`
	User      User      `json:"user"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Issue     int       `json:"-"` // the pull request it is on
}

// Reaction is a reaction on a comment.
type Reaction struct {
	ID      int64  `json:"id"`
	User    User   `json:"user"`
	Content string `json:"content"`
}

// Status is a commit status.
type Status struct {
	SHA         string `json:"-"`
	State       string `json:"state"`
	Description string `json:"description"`
	Context     string `json:"context"`
}

// Fault is an injected failure: the next Count requests whose method and
// path match get Code.
type Fault struct {
	Method, Path string // Path is a regexp
	Code         int
	Count        int
	// RetryAfter and Message, when set, are the answer's Retry-After
	// header and message (a secondary rate limit).
	RetryAfter, Message string
	// Done carries the request out before failing: the server did the
	// write, then answered Code (a 5xx after the comment was created).
	Done bool
}

// Server is the fake GitHub.
type Server struct {
	*httptest.Server
	t          testing.TB
	mu         sync.Mutex
	Owner      string
	Repo       string
	PR         int
	Head       string
	Author     string
	BaseSHA    string                       // the pull request's base commit, base.sha
	BaseRef    string                       // its branch, base.ref
	Files      map[string]map[string]string // ref (a sha or a branch) -> path -> content
	Perms      map[string]string            // login -> role_name; missing: 404
	Comments   []Comment
	Reactions  map[int64][]Reaction
	Statuses   []Status
	ReadOnly   bool // writes get 403 "Resource not accessible by integration"
	Faults     []Fault
	Requests   []string // "METHOD path", in order
	nextID     int64
	nextReactn int64
	others     []OpenPull // open pull requests besides PR (AddPull)
}

// The base of the pull request of New, as in the webhook examples of
// reporters/prchannel/testdata/events.
const (
	BaseSHA = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
	BaseRef = "master"
)

// New starts a fake for owner/repo with one open pull request, whose base
// is BaseRef at BaseSHA (with no files until SetFile).
func New(t testing.TB, owner, repo string, pr int, head, author string) *Server {
	s := &Server{t: t, Owner: owner, Repo: repo, PR: pr, Head: head, Author: author, Perms: map[string]string{},
		BaseSHA: BaseSHA, BaseRef: BaseRef, Files: map[string]map[string]string{},
		Reactions: map[int64][]Reaction{}, nextID: 1000, nextReactn: 5000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// AddComment adds a comment by user and returns its id.
func (s *Server) AddComment(user User, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(s.PR, user, body)
}

func (s *Server) add(pr int, user User, body string) int64 {
	s.nextID++
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(s.nextID) * time.Second)
	s.Comments = append(s.Comments, Comment{ID: s.nextID, Body: body, User: user, CreatedAt: now, UpdatedAt: now, Issue: pr})
	return s.nextID
}

// Edit replaces a comment's body (as a person with admin rights may).
func (s *Server) Edit(id int64, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.Comments {
		if s.Comments[i].ID == id {
			s.Comments[i].Body = body
		}
	}
}

// Delete deletes a comment (as a person may, in the web interface).
func (s *Server) Delete(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.Comments {
		if c.ID == id {
			s.Comments = append(s.Comments[:i:i], s.Comments[i+1:]...)
			delete(s.Reactions, id)
			return
		}
	}
}

// React adds a reaction by user on a comment.
func (s *Server) React(comment int64, user User, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextReactn++
	s.Reactions[comment] = append(s.Reactions[comment], Reaction{ID: s.nextReactn, User: user, Content: content})
}

// Snapshot returns copies of the comments and statuses.
func (s *Server) Snapshot() ([]Comment, []Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Comment{}, s.Comments...), append([]Status{}, s.Statuses...)
}

// SetHead moves the pull request's head (a push).
func (s *Server) SetHead(sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Head = sha
}

// SetFile puts a file with content at path on ref (a commit sha or a
// branch), as the contents API serves it; SetFile(s.BaseSHA, "ralph.yaml",
// ...) gives the pull request's base a config.
func (s *Server) SetFile(ref, path, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Files[ref] == nil {
		s.Files[ref] = map[string]string{}
	}
	s.Files[ref][path] = content
}

// RemoveFile removes path from ref: the contents API answers 404.
func (s *Server) RemoveFile(ref, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.Files[ref], path)
}

// SetReadOnly makes writes fail with 403, as with a token that may not
// write (or lifts that).
func (s *Server) SetReadOnly(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ReadOnly = on
}

// Seen counts the requests so far whose method is method and whose path
// matches the regexp path.
func (s *Server) Seen(method, path string) int {
	re := regexp.MustCompile(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.Requests {
		if m, p, _ := strings.Cut(r, " "); m == method && re.MatchString(p) {
			n++
		}
	}
	return n
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Faults = append(s.Faults, f)
}

var (
	reComments   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`)
	reComment    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$`)
	reReactions  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)/reactions$`)
	rePull       = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`)
	rePermission = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/collaborators/([^/]+)/permission$`)
	reStatus     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/statuses/([0-9a-f]+)$`)
	reContents   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/contents/(.+)$`)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Requests = append(s.Requests, r.Method+" "+r.URL.Path)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Count > 0 && f.Method == r.Method && regexp.MustCompile(f.Path).MatchString(r.URL.Path) {
			f.Count--
			if f.Done {
				s.route(httptest.NewRecorder(), r)
			}
			if f.Code == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			msg := "injected fault"
			if f.Message != "" {
				msg = f.Message
			}
			s.error(w, f.Code, msg)
			return
		}
	}
	s.route(w, r)
}

// route answers a request as GitHub would; s.mu is held.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer test-token" {
		s.error(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	p := r.URL.Path
	write := r.Method != http.MethodGet
	if write && s.ReadOnly {
		s.error(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	if s.serveOpen(w, r) {
		return
	}
	switch m := match(p); {
	case r.Method == "GET" && p == "/user":
		s.error(w, http.StatusForbidden, "Resource not accessible by integration")
	case r.Method == "GET" && m(rePull) != nil && s.repo(m(rePull)) && s.isPull(atoi(m(rePull)[3])):
		s.json(w, 200, s.pullJSON(s.pull(atoi(m(rePull)[3]))))
	case r.Method == "GET" && m(reContents) != nil && s.repo(m(reContents)):
		// GET /repos/{owner}/{repo}/contents/{path}?ref=: a file is
		// {"type":"file","encoding":"base64","content":...}; without ref,
		// the default branch (BaseRef).
		ref, p := r.URL.Query().Get("ref"), m(reContents)[3]
		if ref == "" {
			ref = s.BaseRef
		}
		content, ok := s.Files[ref][p]
		if !ok {
			s.error(w, 404, "Not Found")
			return
		}
		name := p[strings.LastIndex(p, "/")+1:]
		b64 := base64.StdEncoding.EncodeToString([]byte(content))
		var wrapped strings.Builder // GitHub breaks the base64 into lines of 60
		for len(b64) > 0 {
			n := min(60, len(b64))
			wrapped.WriteString(b64[:n] + "\n")
			b64 = b64[n:]
		}
		blob := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content)))
		s.json(w, 200, map[string]any{"type": "file", "encoding": "base64", "size": len(content), "name": name, "path": p,
			"sha": hex.EncodeToString(blob[:]), "content": wrapped.String()})
	case r.Method == "GET" && m(reComments) != nil && s.repo(m(reComments)) && s.isPull(atoi(m(reComments)[3])):
		all := s.commentsOn(atoi(m(reComments)[3]))
		page := max(1, atoi(r.URL.Query().Get("page")))
		lo, hi := min((page-1)*PageSize, len(all)), min(page*PageSize, len(all))
		s.link(w, r, page, len(all))
		s.json(w, 200, all[lo:hi])
	case r.Method == "POST" && m(reComments) != nil && s.repo(m(reComments)) && s.isPull(atoi(m(reComments)[3])):
		var in struct{ Body string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" || len(in.Body) > 65536 {
			s.error(w, 422, "Validation Failed")
			return
		}
		id := s.add(atoi(m(reComments)[3]), Bot, in.Body)
		s.json(w, 201, s.Comments[len(s.Comments)-1])
		_ = id
	case r.Method == "PATCH" && m(reComment) != nil && s.repo(m(reComment)):
		var in struct{ Body string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" || len(in.Body) > 65536 {
			s.error(w, 422, "Validation Failed")
			return
		}
		for i := range s.Comments {
			if s.Comments[i].ID == int64(atoi(m(reComment)[3])) {
				if s.Comments[i].User != Bot {
					s.error(w, 403, "Must have admin rights to Repository.")
					return
				}
				s.Comments[i].Body = in.Body
				s.json(w, 200, s.Comments[i])
				return
			}
		}
		s.error(w, 404, "Not Found")
	case r.Method == "GET" && m(reReactions) != nil && s.repo(m(reReactions)):
		all := s.Reactions[int64(atoi(m(reReactions)[3]))]
		page := max(1, atoi(r.URL.Query().Get("page")))
		lo, hi := min((page-1)*PageSize, len(all)), min(page*PageSize, len(all))
		s.link(w, r, page, len(all))
		s.json(w, 200, all[lo:hi])
	case r.Method == "GET" && m(rePermission) != nil && s.repo(m(rePermission)):
		login := m(rePermission)[3]
		role, ok := s.Perms[login]
		if !ok {
			s.error(w, 404, "Not Found")
			return
		}
		legacy := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}[role]
		s.json(w, 200, map[string]any{"permission": legacy, "role_name": role, "user": User{Login: login, Type: "User"}})
	case r.Method == "POST" && m(reStatus) != nil && s.repo(m(reStatus)):
		var st Status
		if json.NewDecoder(r.Body).Decode(&st) != nil || st.State == "" {
			s.error(w, 422, "Validation Failed")
			return
		}
		st.SHA = m(reStatus)[3]
		s.Statuses = append(s.Statuses, st)
		s.json(w, 201, st)
	default:
		s.t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL)
		s.error(w, 404, "Not Found")
	}
}

func match(p string) func(*regexp.Regexp) []string {
	return func(re *regexp.Regexp) []string { return re.FindStringSubmatch(p) }
}

func (s *Server) repo(m []string) bool { return m[1] == s.Owner && m[2] == s.Repo }

// link writes GitHub's Link header for a page of total items.
func (s *Server) link(w http.ResponseWriter, r *http.Request, page, total int) {
	last := max(1, (total+PageSize-1)/PageSize)
	if page >= last {
		return
	}
	u := *r.URL
	q := u.Query()
	q.Set("page", strconv.Itoa(page+1))
	u.RawQuery = q.Encode()
	next := s.URL + u.String()
	q.Set("page", strconv.Itoa(last))
	u.RawQuery = q.Encode()
	w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s%s>; rel="last"`, next, s.URL, u.String()))
}

func (s *Server) json(w http.ResponseWriter, code int, v any) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) error(w http.ResponseWriter, code int, msg string) {
	s.json(w, code, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
