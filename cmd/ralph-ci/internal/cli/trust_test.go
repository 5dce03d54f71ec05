package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
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
		"RALPH_TOKEN_FILE":      write("token", "job-token\n"),
		"RALPH_PUSH_TOKEN_FILE": write("push", "push-token\r\n"),
		"GITHUB_TOKEN":          "from-the-environment",
	}
	getenv := func(k string) string { return env[k] }
	token, err := readToken(getenv)
	if err != nil || token != "job-token" {
		t.Errorf("readToken = %q, %v; want job-token", token, err)
	}
	push, err := readSecret(getenv, agent.PushTokenFDVar, agent.PushTokenFileVar)
	if err != nil || push != "push-token" {
		t.Errorf("the push-token = %q, %v; want push-token", push, err)
	}
	for _, name := range []string{"token", "push"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the %s file is still there: %v", name, err)
		}
	}
	if _, err := readSecret(getenv, agent.PushTokenFDVar, agent.PushTokenFileVar); err == nil || !strings.Contains(err.Error(), agent.PushTokenFileVar) {
		t.Errorf("a push-token file that is gone: %v, want an error naming %s", err, agent.PushTokenFileVar)
	}

	env = map[string]string{"RALPH_PUSH_TOKEN_FD": "x", "RALPH_PUSH_TOKEN_FILE": write("push", "unread")}
	if _, err := readSecret(getenv, agent.PushTokenFDVar, agent.PushTokenFileVar); err == nil || !strings.Contains(err.Error(), agent.PushTokenFDVar) {
		t.Errorf("a descriptor named as well: %v, want its error (it wins over the file)", err)
	}

	env = map[string]string{"GITHUB_TOKEN": "from-the-environment"}
	if token, err := readToken(getenv); err != nil || token != "from-the-environment" {
		t.Errorf("readToken without a descriptor or file = %q, %v; want GITHUB_TOKEN's", token, err)
	}
	if push, err := readSecret(getenv, agent.PushTokenFDVar, agent.PushTokenFileVar); err != nil || push != "" {
		t.Errorf("no push-token = %q, %v; want none", push, err)
	}
}
