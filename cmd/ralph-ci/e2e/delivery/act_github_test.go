package delivery

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/actionstep"
)

// actGitHub is "github.com" for the jobs act runs (GITHUB_SERVER_URL; the
// API is under /api/v3, as on GitHub Enterprise Server): the pull
// request's repository over HTTP (/Codertocat/Hello-World, ghorigin's
// server, which requires the token), the REST API (the fake) and ralph-ci's
// release (its tags and assets). Anything else fails the test.
type actGitHub struct {
	URL string
}

// The release the Action installs: v1 is the moving tag the workflows
// name, on the same commit as the release tag.
const (
	actReleaseTag = "v1.0.0"
	actReleaseSHA = "1111111111111111111111111111111111111111"
)

func newActGitHub(t *testing.T, w *e2e.CIWorld, assets map[string][]byte) *actGitHub {
	t.Helper()
	origin, err := url.Parse(w.ServerURL)
	if err != nil {
		t.Fatal(err)
	}
	api, err := url.Parse(w.Srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	repo := "/" + filepath.Base(w.Bare)
	git := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		rest := strings.TrimPrefix(strings.TrimPrefix(pr.In.URL.Path, "/Codertocat/Hello-World"), ".git")
		pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.URL.RawPath = origin.Scheme, origin.Host, repo+rest, ""
		pr.Out.Host = ""
	}}
	mux := http.NewServeMux()
	mux.Handle("/Codertocat/Hello-World/", git)
	mux.Handle("/Codertocat/Hello-World.git/", git)
	mux.Handle("/api/v3/", httputil.NewSingleHostReverseProxy(api))
	mux.HandleFunc("GET /api/v3/repos/ralph-ci/ralph-ci/tags", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"name":"v1","commit":{"sha":%q}},{"name":%q,"commit":{"sha":%q}}]`, actReleaseSHA, actReleaseTag, actReleaseSHA)
	})
	mux.HandleFunc("GET /ralph-ci/ralph-ci/releases/download/"+actReleaseTag+"/{asset}", func(w http.ResponseWriter, r *http.Request) {
		body, ok := assets[r.PathValue("asset")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a job asked github.com for %s %s, which this test does not serve", r.Method, r.URL)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &actGitHub{URL: srv.URL}
}

// ralphRelease is a release of the binary bin for this machine, as
// .goreleaser.yaml names it: the archive holding ralph-ci and the
// checksums file.
func ralphRelease(t *testing.T, bin string) map[string][]byte {
	t.Helper()
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := actionstep.TarGz("ralph-ci", exe)
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimPrefix(actReleaseTag, "v")
	name := fmt.Sprintf("ralph-ci_%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	sum := sha256.Sum256(archive)
	return map[string][]byte{
		name: archive,
		fmt.Sprintf("ralph-ci_%s_checksums.txt", version): []byte(hex.EncodeToString(sum[:]) + "  " + name + "\n"),
	}
}
