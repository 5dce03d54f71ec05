package seal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	tokenFD, tokenFile = "RALPH_TOKEN_FD", "RALPH_TOKEN_FILE"
	pushFD, pushFile   = "RALPH_PUSH_TOKEN_FD", "RALPH_PUSH_TOKEN_FILE"
)

// TestSecretsFromFiles: the token and the push-token handed in files (the
// Action's way on Windows) are read, trimmed and the files deleted; a
// descriptor named as well wins; a file that is not there is an error
// naming its variable; with neither, the token is GITHUB_TOKEN's and the
// push-token none.
func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{
		tokenFile:      write("token", "job-token\n"),
		pushFile:       write("push", "push-token\r\n"),
		"GITHUB_TOKEN": "from-the-environment",
	}
	getenv := func(k string) string { return env[k] }
	token, err := Token(getenv, tokenFD, tokenFile)
	if err != nil || token != "job-token" {
		t.Errorf("Token = %q, %v; want job-token", token, err)
	}
	push, err := Secret(getenv, pushFD, pushFile)
	if err != nil || push != "push-token" {
		t.Errorf("the push-token = %q, %v; want push-token", push, err)
	}
	for _, name := range []string{"token", "push"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the %s file is still there: %v", name, err)
		}
	}
	if _, err := Secret(getenv, pushFD, pushFile); err == nil || !strings.Contains(err.Error(), pushFile) {
		t.Errorf("a push-token file that is gone: %v, want an error naming %s", err, pushFile)
	}

	env = map[string]string{pushFD: "x", pushFile: write("push", "unread")}
	if _, err := Secret(getenv, pushFD, pushFile); err == nil || !strings.Contains(err.Error(), pushFD) {
		t.Errorf("a descriptor named as well: %v, want its error (it wins over the file)", err)
	}

	env = map[string]string{"GITHUB_TOKEN": "from-the-environment"}
	if token, err := Token(getenv, tokenFD, tokenFile); err != nil || token != "from-the-environment" {
		t.Errorf("Token without a descriptor or file = %q, %v; want GITHUB_TOKEN's", token, err)
	}
	if push, err := Secret(getenv, pushFD, pushFile); err != nil || push != "" {
		t.Errorf("no push-token = %q, %v; want none", push, err)
	}
}

// TestSplit: the entries the rule names move out, the others stay, in
// their order; a value that looks like a name moves nothing.
func TestSplit(t *testing.T) {
	secret := func(name string) bool { return strings.HasSuffix(name, "_TOKEN") }
	keep, moved := Split([]string{"PATH=/bin", "GH_TOKEN=s1", "NOTE=X_TOKEN=1", "A_TOKEN="}, secret)
	if want := []string{"PATH=/bin", "NOTE=X_TOKEN=1"}; !slices.Equal(keep, want) {
		t.Errorf("keep = %q, want %q", keep, want)
	}
	if want := []string{"GH_TOKEN=s1", "A_TOKEN="}; !slices.Equal(moved, want) {
		t.Errorf("moved = %q, want %q", moved, want)
	}
}

// TestGetenvSealedFirst: a sealed entry wins over the environment's, and
// the environment answers for the rest.
func TestGetenvSealedFirst(t *testing.T) {
	t.Setenv("SEAL_TEST_A", "env")
	t.Setenv("SEAL_TEST_B", "env")
	get := Getenv(map[string]string{"SEAL_TEST_A": "sealed"})
	if a, b := get("SEAL_TEST_A"), get("SEAL_TEST_B"); a != "sealed" || b != "env" {
		t.Errorf("Getenv = %q, %q; want sealed, env", a, b)
	}
}
