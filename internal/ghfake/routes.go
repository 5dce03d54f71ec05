package ghfake

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// routes is the fake's router: one method pattern per endpoint GitHub
// documents, and a catch-all that fails the test naming the request, so a
// client calling anything else (or another repository or pull request) is
// caught rather than answered.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /user", s.getUser)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/commits", s.listPullCommits)
	mux.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", s.getContents)
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/{a}/{b}", s.issuesGet)
	mux.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", s.createComment)
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	mux.HandleFunc("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.deleteComment)
	mux.HandleFunc("GET /repos/{owner}/{repo}/issues/comments/{id}/reactions", s.listReactions)
	mux.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{user}/permission", s.getPermission)
	mux.HandleFunc("POST /repos/{owner}/{repo}/statuses/{sha}", s.createStatus)
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls", s.listPulls)
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/status", s.combinedStatus)
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/statuses", s.listStatuses)
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls", s.createPull)
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/pulls/{id}", s.editPull)
	mux.HandleFunc("PUT /repos/{owner}/{repo}/pulls/{number}/merge", s.mergePull)
	mux.HandleFunc("GET /repos/{owner}/{repo}/compare/{basehead}", s.compare)
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}", s.getCommit)
	mux.HandleFunc("POST /repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", s.dispatch)
	mux.HandleFunc("/", s.unexpected)
	return mux
}

// serve records the request, applies an injected fault if one matches,
// and otherwise answers as GitHub would; then it checks the request and
// the answer against GitHub's OpenAPI description (see conform), failing
// the test on anything the description does not allow.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// The fake runs on 127.0.0.1, where go-github's WithEnterpriseURLs
	// adds GitHub Enterprise Server's /api/v3 prefix: it serves both.
	if p, ok := strings.CutPrefix(r.URL.Path, "/api/v3/"); ok {
		r.URL.Path, r.URL.RawPath = "/"+p, ""
	}
	reqBody, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		s.t.Errorf("fake GitHub: %s %s: reading the body: %v", r.Method, r.URL, err)
	}
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	if s.Hook != nil {
		s.Hook(r, reqBody)
	}
	rec, faulted := s.record(r)
	if err := conform(r, reqBody, rec, faulted); err != nil {
		s.t.Errorf("fake GitHub: %s %s does not conform to GitHub's OpenAPI description (@octokit/openapi %s): %v",
			r.Method, r.URL, OpenAPIVersion, err)
	}
	if rec == nil {
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// record answers r into a recorder, or with an injected fault (faulted);
// nil when the request hung until the client gave up.
func (s *Server) record(r *http.Request) (rec *httptest.ResponseRecorder, faulted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Requests = append(s.Requests, r.Method+" "+r.URL.Path)
	rec = httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json; charset=utf-8")
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Count > 0 && f.Method == r.Method && regexp.MustCompile(f.Path).MatchString(r.URL.Path) {
			f.Count--
			if f.Hang {
				s.mu.Unlock() // other requests go on meanwhile
				<-r.Context().Done()
				s.mu.Lock()
				return nil, true
			}
			if f.Done {
				s.answer(httptest.NewRecorder(), r)
			}
			if f.Code == http.StatusTooManyRequests {
				rec.Header().Set("Retry-After", "0")
			}
			if f.RetryAfter != "" {
				rec.Header().Set("Retry-After", f.RetryAfter)
			}
			msg := "injected fault"
			if f.Message != "" {
				msg = f.Message
			}
			s.error(rec, f.Code, msg)
			return rec, true
		}
	}
	s.answer(rec, r)
	return rec, false
}

// answer checks the token and the write permission, then routes; s.mu is
// held.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token != cmp.Or(s.Token, "test-token") && (token == "" || !slices.Contains(s.JobTokens, token)) {
		s.error(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	if r.Method != http.MethodGet && s.ReadOnly {
		s.error(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.mux.ServeHTTP(w, r)
}

// unexpected fails the test: no route of the fake answers this request.
func (s *Server) unexpected(w http.ResponseWriter, r *http.Request) {
	s.t.Errorf("fake GitHub: unexpected request %s %s", r.Method, r.URL)
	s.error(w, http.StatusNotFound, "Not Found")
}

// ours reports whether the request is about the fake's repository (and,
// with a {number}, its pull request; with an {id}, a number); if not, the
// request is unexpected.
func (s *Server) ours(w http.ResponseWriter, r *http.Request) bool {
	ok := r.PathValue("owner") == s.Owner && r.PathValue("repo") == s.Repo
	if n := r.PathValue("number"); n != "" {
		ok = ok && reNumber.MatchString(n) && s.isPull(atoi(n))
	}
	if id := r.PathValue("id"); id != "" {
		ok = ok && reNumber.MatchString(id)
	}
	if !ok {
		s.unexpected(w, r)
	}
	return ok
}

// getUser: a GITHUB_TOKEN (an installation token) may not read /user.
func (s *Server) getUser(w http.ResponseWriter, _ *http.Request) {
	s.error(w, http.StatusForbidden, "Resource not accessible by integration")
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	n := atoi(r.PathValue("number"))
	j := s.openPullJSON(s.pull(n))
	j["maintainer_can_modify"] = n == s.PR && s.MaintainerCanModify
	s.json(w, 200, shape("pull-request", j))
}

// getContents answers GET /repos/{owner}/{repo}/contents/{path}?ref=: a
// file is {"type":"file","encoding":"base64","content":...}; without ref,
// the default branch (BaseRef).
func (s *Server) getContents(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	ref, p := r.URL.Query().Get("ref"), r.PathValue("path")
	if p == "" {
		s.unexpected(w, r)
		return
	}
	if ref == "" {
		ref = s.BaseRef
	}
	content, ok := s.Files[ref][p]
	if !ok && s.FilesFrom != nil {
		content, ok = s.FilesFrom(ref, p)
	}
	if entries := s.dirEntries(ref, p); !ok && len(entries) > 0 {
		s.json(w, 200, shape("content-file-response-if-content-is-a-directory", entries))
		return
	}
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
	blob := sha1.Sum(fmt.Appendf(nil, "blob %d\x00%s", len(content), content))
	s.json(w, 200, shape("content-file-response-if-content-is-a-file", map[string]any{"type": "file", "encoding": "base64",
		"size": len(content), "name": name, "path": p, "sha": hex.EncodeToString(blob[:]), "content": wrapped.String()}))
}

// dirEntries lists the directory dir on ref as the contents API does (an
// array of files and directories), nil when no file of ref is under it.
func (s *Server) dirEntries(ref, dir string) []map[string]any {
	var out []map[string]any
	seen := map[string]bool{}
	files := slices.Collect(maps.Keys(s.Files[ref]))
	if s.TreeFrom != nil {
		files = append(files, s.TreeFrom(ref)...)
	}
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		rest, ok := strings.CutPrefix(f, dir+"/")
		if !ok {
			continue
		}
		name, _, sub := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		typ := "file"
		if sub {
			typ = "dir"
		}
		out = append(out, map[string]any{"type": typ, "name": name, "path": dir + "/" + name})
	}
	return out
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	var out []map[string]any
	for _, c := range s.commentsOn(atoi(r.PathValue("number"))) {
		out = append(out, s.commentJSON(c))
	}
	paginate(s, w, r, "issue-comment", out)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	s.add(atoi(r.PathValue("number")), s.self(), body)
	s.json(w, 201, shape("issue-comment", s.commentJSON(s.Comments[len(s.Comments)-1])))
}

// issuesGet routes GET .../issues/{number}/comments (a pull request's
// comments) and .../issues/comments/{id} (one comment), two patterns
// ServeMux cannot tell apart.
func (s *Server) issuesGet(w http.ResponseWriter, r *http.Request) {
	a, b := r.PathValue("a"), r.PathValue("b")
	switch {
	case a == "comments":
		r.SetPathValue("id", b)
		s.getComment(w, r)
	case b == "comments":
		r.SetPathValue("number", a)
		s.listComments(w, r)
	default:
		s.unexpected(w, r)
	}
}

// getComment answers one comment by id, with the issue_url of the pull
// request it is on (as GitHub does).
func (s *Server) getComment(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	id := int64(atoi(r.PathValue("id")))
	for _, c := range s.Comments {
		if c.ID == id {
			s.json(w, 200, shape("issue-comment", s.commentJSON(c)))
			return
		}
	}
	s.error(w, 404, "Not Found")
}

// commentJSON is c as the API shows it, with the URLs of the pull
// request it is on (issue_url) and of itself.
func (s *Server) commentJSON(c Comment) map[string]any {
	issue := fmt.Sprintf("%s/repos/%s/%s/issues/%d", s.URL, s.Owner, s.Repo, c.Issue)
	return map[string]any{"id": c.ID, "body": c.Body, "user": c.User, "created_at": c.CreatedAt, "updated_at": c.UpdatedAt,
		"issue_url": issue, "url": fmt.Sprintf("%s/repos/%s/%s/issues/comments/%d", s.URL, s.Owner, s.Repo, c.ID),
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, c.Issue, c.ID)}
}

// editComment: only the token's own comments may be edited with it.
func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	body, ok := s.body(w, r)
	if !ok {
		return
	}
	id := int64(atoi(r.PathValue("id")))
	for i := range s.Comments {
		if s.Comments[i].ID == id {
			if s.Comments[i].User != s.self() {
				s.error(w, 403, "Must have admin rights to Repository.")
				return
			}
			s.Comments[i].Body, s.Comments[i].UpdatedAt = body, s.now()
			s.json(w, 200, shape("issue-comment", s.commentJSON(s.Comments[i])))
			return
		}
	}
	s.error(w, 404, "Not Found")
}

// deleteComment: only the token's own comments may be deleted with it.
func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	id := int64(atoi(r.PathValue("id")))
	for i, c := range s.Comments {
		if c.ID == id {
			if c.User != s.self() {
				s.error(w, 403, "Must have admin rights to Repository.")
				return
			}
			s.Comments = append(s.Comments[:i:i], s.Comments[i+1:]...)
			delete(s.Reactions, id)
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	s.error(w, 404, "Not Found")
}

// body reads the {"body": ...} of a comment on the fake's repository
// (see ours), answering 422 as GitHub does when it is missing, empty or
// longer than 65536 characters.
func (s *Server) body(w http.ResponseWriter, r *http.Request) (string, bool) {
	if !s.ours(w, r) {
		return "", false
	}
	var in struct{ Body string }
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" || len(in.Body) > 65536 {
		s.error(w, 422, "Validation Failed")
		return "", false
	}
	return in.Body, true
}

func (s *Server) listReactions(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	paginate(s, w, r, "reaction-items", s.Reactions[int64(atoi(r.PathValue("id")))])
}

// getPermission answers with the role of Perms and the legacy permission
// GitHub derives from it; a login that is not a collaborator gets 404.
func (s *Server) getPermission(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	login := r.PathValue("user")
	role, ok := s.Perms[login]
	if !ok {
		s.error(w, 404, "Not Found")
		return
	}
	legacy := map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}[role]
	s.json(w, 200, shape("repository-collaborator-permission-response-if-user-has-admin-permissions",
		map[string]any{"permission": legacy, "role_name": role, "user": map[string]any{"login": login, "type": "User", "role_name": role}}))
}

var (
	reNumber = regexp.MustCompile(`^[0-9]+$`)
	reSHA    = regexp.MustCompile(`^[0-9a-f]+$`)
)

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	sha := r.PathValue("sha")
	if !reSHA.MatchString(sha) {
		s.unexpected(w, r)
		return
	}
	var st Status
	if json.NewDecoder(r.Body).Decode(&st) != nil || st.State == "" {
		s.error(w, 422, "Validation Failed")
		return
	}
	st.SHA, st.CreatedAt, st.Creator = sha, s.now(), s.self()
	s.Statuses = append(s.Statuses, st)
	s.json(w, 201, shape("status", st))
}

// listStatuses answers the statuses of a commit, newest first.
func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	var out []Status
	for i := len(s.Statuses) - 1; i >= 0; i-- {
		if s.Statuses[i].SHA == r.PathValue("ref") {
			out = append(out, s.Statuses[i])
		}
	}
	paginate(s, w, r, "status-items", out)
}

// paginate answers the page of all that the query's page asks for
// (PageSize items, the first page without one), with GitHub's Link header,
// each item shaped by the description's example (see shape).
func paginate[T any](s *Server, w http.ResponseWriter, r *http.Request, example string, all []T) {
	page := max(1, atoi(r.URL.Query().Get("page")))
	lo, hi := min((page-1)*PageSize, len(all)), min(page*PageSize, len(all))
	s.link(w, r, page, len(all))
	items := []any{}
	for _, v := range all[lo:hi] {
		items = append(items, shape(example, v))
	}
	s.json(w, 200, items)
}

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
