package ghorigin

import (
	"encoding/base64"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ServeHTTP serves origin over HTTP on 127.0.0.1 with git's own
// http-backend, as a private repository is served: every request must
// carry token the way actions/checkout's header does (basic auth,
// x-access-token), else 401. From then on URL is the HTTP one (new
// checkouts' origin) and ServerURL the server's (GITHUB_SERVER_URL); the
// person's clone keeps pushing to the bare repository directly.
func (o *Origin) ServeHTTP(token string) {
	t := o.t
	Git(t, o.Bare, "config", "http.receivepack", "true")
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + filepath.Dir(o.Bare), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if o.OnRequest != nil {
			o.OnRequest(r)
		}
		o.mu.Lock()
		o.Requests = append(o.Requests, r.Method+" "+r.URL.String())
		o.SentWith = append(o.SentWith, pass)
		if strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
			o.PushedWith = append(o.PushedWith, pass)
		}
		o.mu.Unlock()
		if !ok || user != "x-access-token" || pass != token {
			o.mu.Lock()
			o.Refused++
			o.mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Basic realm="origin"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	o.ServerURL, o.Token = srv.URL, token
	o.URL = srv.URL + "/" + filepath.Base(o.Bare)
}

// Header is the extraheader actions/checkout persists for the token.
func (o *Origin) Header() string {
	return "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+o.Token))
}

// httpState is what ServeHTTP adds to an Origin.
type httpState struct {
	mu sync.Mutex
	// ServerURL is the HTTP server's URL, Token the token it requires
	// ("" until ServeHTTP).
	ServerURL, Token string
	// NoPersist makes Checkout leave the token out of .git/config, as
	// persist-credentials: false does.
	NoPersist bool
	// Requests are the requests served, Refused how many lacked the token.
	Requests []string
	Refused  int
	// PushedWith is the token each push (git-receive-pack) came with;
	// SentWith the token of every request, fetches included.
	PushedWith, SentWith []string
	// OnRequest, if set before the first request, is called with each
	// request as it arrives, before it is served (a test checks what
	// runs on the machine at the instant git reaches the origin).
	OnRequest func(*http.Request)
}

// Sent returns a copy of SentWith.
func (o *Origin) Sent() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.SentWith...)
}

// Pushes returns a copy of PushedWith.
func (o *Origin) Pushes() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.PushedWith...)
}
