package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// check on a pull request with a token GitHub does not accept: the raw
// "401 Requires authentication []" comes with what to do.
func TestCheckWith401SaysHowToGiveTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message":"Requires authentication","documentation_url":"https://docs.github.com/rest"}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	write(t, dir, "ralph.yaml", "agents:\n  coder: {command: [sh, agent.sh]}\n")
	write(t, dir, "specs/a.spec.md", "# A\n")
	write(t, dir, "event.json", `{"number": 3, "pull_request": {"number": 3, "head": {"sha": "abc"}}}`)
	cmd := exec.Command(e2e.RalphBinary(t), "--log-format", "json", "check")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+filepath.Join(dir, "event.json"),
		"GITHUB_REPOSITORY=o/r", "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=not-a-valid-token", "RUNNER_DEBUG=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("check: %v, want exit 1\n%s", err, stderr.Bytes())
	}
	for _, want := range []string{"401", "GitHub refused the token (401): give the job's token", "docs/troubleshooting.md#no-github-token"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.Bytes())
		}
	}
}
