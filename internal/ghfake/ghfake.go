// Package ghfake is an in-process fake of the GitHub REST API endpoints
// ralph-ci's checkpoints use, speaking GitHub's documented JSON: pulls,
// issue comments (paginated with Link headers), comment reactions
// (paginated), collaborator permission, commit statuses, /user and the
// repository contents of a file at a ref (the base commit's config). It
// keeps state, fails the test on any request none of its routes (see
// routes.go) answers, and can inject faults (429, 5xx) and refuse writes
// (a read-only token). Every request it handles and every answer it gives
// is checked against GitHub's published OpenAPI description (openapi.go):
// a path, method, query parameter, body or answer the description does
// not allow fails the test; answers carry every field it requires.
package ghfake

import (
	"net/http"
	"net/http/httptest"
	"regexp"
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

// App is the identity of a GitHub App installation token's comments and
// statuses (Server.Self), e.g. a workflow's own app.
var App = User{Login: "my-app[bot]", ID: 41898283, Type: "Bot"}

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
	ID        int64     `json:"id"`
	User      User      `json:"user"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// Status is a commit status.
type Status struct {
	SHA         string    `json:"-"`
	State       string    `json:"state"`
	Description string    `json:"description"`
	Context     string    `json:"context"`
	TargetURL   string    `json:"target_url"`
	CreatedAt   time.Time `json:"created_at"`
	Creator     User      `json:"creator"`
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
	// Hang never answers: the request waits until the client gives up
	// (Code is not used).
	Hang bool
}

// Server is the fake GitHub.
type Server struct {
	*httptest.Server
	t     testing.TB
	mu    sync.Mutex
	Owner string
	Repo  string
	// Token is the token the requests must carry; "" means "test-token".
	// JobTokens are accepted too, writing as the same Self: each job of a
	// workflow run has its own GITHUB_TOKEN, so a test tells overlapping
	// jobs apart by theirs.
	Token      string
	JobTokens  []string
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
	ticks      int64 // the clock (now)
	mux        *http.ServeMux
	others     []OpenPull // open pull requests besides PR (AddPull)

	// HeadFrom, when set, gives the pull request's head (a bare origin's
	// branch); HeadRef is its branch ("" = "feature").
	HeadFrom func() string
	HeadRef  string
	// HeadRepo, when set, is the full name of the repository New's pull
	// request comes from (a fork); HeadCloneURL its clone URL (""
	// https://github.com/<HeadRepo>.git), MaintainerCanModify whether its
	// owner lets maintainers push to the pull request's branch.
	HeadRepo            string
	HeadCloneURL        string
	MaintainerCanModify bool
	// FilesFrom, when set, answers the contents API for files not in
	// Files (a bare origin's blobs).
	FilesFrom func(ref, path string) (string, bool)
	// TreeFrom, when set, lists the files of ref (a bare origin's tree)
	// for the contents API's directory listings beside Files.
	TreeFrom func(ref string) []string
	// Ancestor, when set, tells whether commit a is an ancestor of
	// commit b (the compare API; a merge group contains its pull
	// requests' heads).
	Ancestor func(a, b string) bool
	// MessageFrom, when set, gives a commit's message (the commits API).
	MessageFrom func(sha string) (string, bool)
	// Pulls are the pull requests opened through the API (pulls.go).
	Pulls []Pull
	// Self is who the token writes as (comments, statuses); zero: Bot.
	Self User
	// commits are New's pull request's commits, oldest first: its first
	// head, then every head SetHead gave it (SetCommits rewrites them).
	commits []string
	// required are the contexts the base branch requires (Protect);
	// merged is the head New's pull request was merged at ("" not yet).
	required []string
	merged   string
	// Workflows are the workflow files a workflow_dispatch may name (nil:
	// any); dispatches are the requests received.
	Workflows  []string
	dispatches []Dispatch
	// Hook, when set, sees each request (and its body) before it is
	// answered, outside the fake's lock: a test counts requests per job
	// token, or holds one back (a barrier) to force an interleaving.
	Hook func(r *http.Request, body []byte)
}

// The base of the pull request of New, as in the webhook examples of
// github/prchannel/testdata/events.
const (
	BaseSHA = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
	BaseRef = "master"
)

// New starts a fake for owner/repo with one open pull request, whose base
// is BaseRef at BaseSHA (with no files until SetFile).
func New(t testing.TB, owner, repo string, pr int, head, author string) *Server {
	s := &Server{t: t, Owner: owner, Repo: repo, PR: pr, Head: head, Author: author, Perms: map[string]string{},
		BaseSHA: BaseSHA, BaseRef: BaseRef, Files: map[string]map[string]string{},
		Reactions: map[int64][]Reaction{}, nextID: 1000, nextReactn: 5000, commits: []string{head}}
	s.mux = s.routes()
	if _, err := described(); err != nil { // once per test process, before any request
		t.Fatal(err)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// now is the fake's clock: one second later at every comment, reaction
// and status, so that what happened later is later on GitHub's record
// too, whatever the machine's speed; s.mu is held.
func (s *Server) now() time.Time {
	s.ticks++
	return time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(s.ticks) * time.Second)
}

// AddComment adds a comment by user and returns its id.
func (s *Server) AddComment(user User, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(s.PR, user, body)
}

func (s *Server) add(pr int, user User, body string) int64 {
	s.nextID++
	now := s.now()
	s.Comments = append(s.Comments, Comment{ID: s.nextID, Body: body, User: user, CreatedAt: now, UpdatedAt: now, Issue: pr})
	return s.nextID
}

// Edit replaces a comment's body (as a person with write access may,
// whoever wrote it); GitHub then shows it updated later than created.
func (s *Server) Edit(id int64, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.Comments {
		if s.Comments[i].ID == id {
			s.Comments[i].Body, s.Comments[i].UpdatedAt = body, s.now()
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
	s.Reactions[comment] = append(s.Reactions[comment], Reaction{ID: s.nextReactn, User: user, Content: content, CreatedAt: s.now()})
}

// Snapshot returns copies of the comments and statuses.
func (s *Server) Snapshot() ([]Comment, []Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Comment{}, s.Comments...), append([]Status{}, s.Statuses...)
}

// SetHead moves the pull request's head (a push): it is the newest of
// the pull request's commits.
func (s *Server) SetHead(sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Head = sha
	if s.commits[len(s.commits)-1] != sha {
		s.commits = append(s.commits, sha)
	}
}

// SetCommits rewrites the pull request's history (a force push): its
// commits are shas, oldest first, the last one its head.
func (s *Server) SetCommits(shas ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits, s.Head = append([]string{}, shas...), shas[len(shas)-1]
}

// self is who the token writes as; s.mu is held.
func (s *Server) self() User {
	if s.Self.Login == "" {
		return Bot
	}
	return s.Self
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
