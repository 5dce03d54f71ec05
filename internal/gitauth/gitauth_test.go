package gitauth

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(strings.Join(args, " "), "--get-regexp") {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// The header actions/checkout persists, in .git/config and in a file it
// includes (as checkout does from v6), is gone while hidden, and back
// after Restore.
func TestHideAndRestore(t *testing.T) {
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	repo := filepath.Join(dir, "repo")
	run(t, dir, "init", "-q", repo)
	cred := base64.StdEncoding.EncodeToString([]byte("x-access-token:ghs_secretsecret"))
	run(t, repo, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic "+cred)
	inc := filepath.Join(dir, "runner-temp", "git-credentials.config")
	if err := os.MkdirAll(filepath.Dir(inc), 0o700); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "config", "--file", inc, "http.https://github.com/.extraheader", "AUTHORIZATION: basic "+cred)
	run(t, repo, "config", "--local", "include.path", inc)
	const list = `^http\..*\.extraheader$`

	h, err := Hide(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "config", "--get-regexp", list); got != "" {
		t.Errorf("while hidden, git config shows %q", got)
	}
	for _, f := range []string{filepath.Join(repo, ".git", "config"), inc} {
		raw, _ := os.ReadFile(f)
		if strings.Contains(string(raw), cred) {
			t.Errorf("%s still holds the credential:\n%s", f, raw)
		}
	}
	if v := h.Values(); !slices.Contains(v, "ghs_secretsecret") || !slices.Contains(v, cred) {
		t.Errorf("Values = %q, want the token and the header's credential", v)
	}
	// ralph-ci's own git gets it back as a credential of its fetch and
	// push only (internal/git gives it through the environment).
	if cs := h.Credentials(); len(cs) != 1 || cs[0] != (git.Credential{URL: "https://github.com/", Header: "AUTHORIZATION: basic " + cred}) {
		t.Errorf("Credentials = %q", cs)
	}
	if err := h.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "config", "--get-regexp", list); strings.Count(got, cred) != 2 {
		t.Errorf("after Restore, git config shows %q", got)
	}
}

// Outside a repository there is nothing to hide.
func TestHideOutsideRepository(t *testing.T) {
	h, err := Hide(context.Background(), t.TempDir())
	if err != nil || len(h.entries) != 0 {
		t.Errorf("Hide = %+v, %v", h, err)
	}
}

// Credential gives ralph-ci's fetch and push the header for the server.
func TestCredential(t *testing.T) {
	c := Credential("https://github.com", "tok")
	if c.URL != "https://github.com/" || c.Header != "AUTHORIZATION: basic "+base64.StdEncoding.EncodeToString([]byte("x-access-token:tok")) {
		t.Errorf("Credential = %q", c)
	}
}
