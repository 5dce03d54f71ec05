package actionstep_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/actionstep"
)

const (
	repo       = "ralph-ci/ralph-ci"
	releaseSHA = "1111111111111111111111111111111111111111"
	otherSHA   = "2222222222222222222222222222222222222222"
)

// fakeRelease serves release assets under /download/TAG/NAME and the
// repository's tags under /api/repos/OWNER/NAME/tags, as GitHub does, and
// records every request.
type fakeRelease struct {
	assets map[string][]byte // "TAG/NAME" -> body
	tags   string            // the tags API's JSON

	mu       sync.Mutex
	requests []string // "METHOD PATH AUTHORIZATION"
}

func (f *fakeRelease) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	f.mu.Unlock()
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/api/repos/"+repo+"/tags" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, f.tags)
		return
	}
	if body, ok := f.assets[strings.TrimPrefix(r.URL.Path, "/download/")]; ok {
		w.Write(body)
		return
	}
	http.NotFound(w, r)
}

func (f *fakeRelease) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// tagsJSON is the tags API's answer: the moving tag v1 and the release
// v1.2.3 on one commit, an older release on another; pretty-printed as
// GitHub serves it.
const tagsJSON = `[
  {
    "name": "v1",
    "zipball_url": "https://api.github.com/repos/ralph-ci/ralph-ci/zipball/refs/tags/v1",
    "tarball_url": "https://api.github.com/repos/ralph-ci/ralph-ci/tarball/refs/tags/v1",
    "commit": {"sha": "` + releaseSHA + `", "url": "https://api.github.com/repos/ralph-ci/ralph-ci/commits/` + releaseSHA + `"},
    "node_id": "REF_1"
  },
  {
    "name": "v1.2.3",
    "zipball_url": "https://api.github.com/repos/ralph-ci/ralph-ci/zipball/refs/tags/v1.2.3",
    "tarball_url": "https://api.github.com/repos/ralph-ci/ralph-ci/tarball/refs/tags/v1.2.3",
    "commit": {"sha": "` + releaseSHA + `", "url": "https://api.github.com/repos/ralph-ci/ralph-ci/commits/` + releaseSHA + `"},
    "node_id": "REF_2"
  },
  {
    "name": "v1.2.2",
    "zipball_url": "https://api.github.com/repos/ralph-ci/ralph-ci/zipball/refs/tags/v1.2.2",
    "tarball_url": "https://api.github.com/repos/ralph-ci/ralph-ci/tarball/refs/tags/v1.2.2",
    "commit": {"sha": "` + otherSHA + `", "url": "https://api.github.com/repos/ralph-ci/ralph-ci/commits/` + otherSHA + `"},
    "node_id": "REF_3"
  }
]`

// fakeBinary is a release "binary": a script that prints a version line
// and leaves a mark that it ran.
func fakeBinary(version, mark string) []byte {
	return []byte("#!/bin/sh\ntouch '" + mark + "'\necho 'ralph-ci " + version + " fake-release'\n")
}

// tarGz packs one executable file the way the release archives hold it.
func tarGz(t *testing.T, name string, body []byte) []byte {
	t.Helper()
	b, err := actionstep.TarGz(name, body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// newRelease is release v1.2.3 with a linux/amd64 archive whose binary
// touches goodMark. With tampered, the archive served is another one
// (touching badMark) than the one the checksums file lists.
func newRelease(t *testing.T, goodMark, badMark string, tampered bool) *fakeRelease {
	t.Helper()
	const asset = "ralph-ci_1.2.3_linux_amd64.tar.gz"
	good := tarGz(t, "ralph-ci", fakeBinary("v1.2.3", goodMark))
	sums := sha256Hex(good) + "  " + asset + "\n" +
		sha256Hex([]byte("darwin")) + "  ralph-ci_1.2.3_darwin_arm64.tar.gz\n"
	served := good
	if tampered {
		served = tarGz(t, "ralph-ci", fakeBinary("v1.2.3", badMark))
	}
	return &fakeRelease{
		assets: map[string][]byte{
			"v1.2.3/" + asset:                        served,
			"v1.2.3/ralph-ci_1.2.3_checksums.txt":    []byte(sums),
			"v1.2.3/ralph-ci_1.2.3_darwin_arm64.zip": []byte("not used"),
		},
		tags: tagsJSON,
	}
}

// repoRoot is the Action's own folder, as github.action_path.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// stubGH puts a gh on PATH (so the host's gh, if any, never answers):
// attestation support as given, verify succeeding or not; its arguments
// go to DIR/gh.args.
func stubGH(t *testing.T, dir string, canAttest, verifies bool) {
	t.Helper()
	script := "#!/bin/sh\necho \"$*\" >> '" + filepath.Join(dir, "gh.args") + "'\n"
	switch {
	case !canAttest:
		script += "echo 'unknown command \"attestation\" for \"gh\"' >&2\nexit 1\n"
	case verifies:
		script += "exit 0\n"
	default:
		script += "case \"$*\" in *--help*) exit 0;; esac\necho 'verification failed: no attestation matched' >&2\nexit 1\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// job is one run of the Action's steps on a test "runner".
type job struct {
	runner             *actionstep.Runner
	action             *actionstep.Action
	temp, bin, goodRan string
	badRan             string
	srv                *httptest.Server
	rel                *fakeRelease
}

// newJob sets up the runner's context for `uses: ralph-ci/ralph-ci@REF`
// on a Linux runner of the given arch (X64, ARM64), with the release
// served by rel (made by mk from the marks' paths).
func newJob(t *testing.T, ref, arch string, with map[string]string, mk func(goodMark, badMark string) *fakeRelease, gh func(dir string)) *job {
	t.Helper()
	action, err := actionstep.Load(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	j := &job{action: action, temp: filepath.Join(dir, "runner-temp"), goodRan: filepath.Join(dir, "good-ran"), badRan: filepath.Join(dir, "tampered-ran")}
	j.rel = mk(j.goodRan, j.badRan)
	j.srv = httptest.NewServer(j.rel)
	t.Cleanup(j.srv.Close)
	for _, d := range []string{j.temp, filepath.Join(dir, "workspace"), filepath.Join(dir, "path"), filepath.Join(dir, "steps")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gh(filepath.Join(dir, "path"))
	ctx := actionstep.Context{
		"github.action_path":       repoRoot(t),
		"github.action_ref":        ref,
		"github.action_repository": repo,
		"github.token":             "test-token",
		"github.workspace":         filepath.Join(dir, "workspace"),
		"runner.temp":              j.temp,
		"runner.os":                "Linux",
		"runner.arch":              arch,
	}
	if err := ctx.Inputs(action, with); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"PATH="+filepath.Join(dir, "path")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_SERVER_URL=https://github.invalid",
		"GITHUB_API_URL="+j.srv.URL+"/api",
		"RALPH_RELEASE_BASE_URL="+j.srv.URL+"/download",
	)
	j.runner = &actionstep.Runner{Ctx: ctx, Env: env, Dir: filepath.Join(dir, "steps")}
	j.bin = filepath.Join(j.temp, "ralph-ci-bin", "ralph-ci")
	return j
}

// step runs the Action's step with the given id, exactly as action.yml has it.
func (j *job) step(t *testing.T, id string) actionstep.Result {
	t.Helper()
	s, err := j.action.Step(id)
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.runner.Run(s)
	if err != nil {
		t.Fatalf("step %s: %v\n%s", id, err, res.Output)
	}
	return res
}
