package gitenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestHandedCoversAHook: every GIT_* variable git adds to the
// environment of a pre-commit hook and of an alias (with `git -c`
// configuration) is in Redirects or Handed, so that Drop leaves a test
// started there none of them.
func TestHandedCoversAHook(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook is a shell script")
	}
	Drop()
	dir := t.TempDir()
	dump := filepath.Join(t.TempDir(), "env")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "alias.dump=!env > " + dump + ".alias"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "--quiet")
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nenv > "+dump+".hook\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f")
	git("commit", "--quiet", "-m", "one")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	git("-C", "sub", "dump")

	had := os.Environ()
	for _, which := range []string{".hook", ".alias"} {
		b, err := os.ReadFile(dump + which)
		if err != nil {
			t.Fatalf("the %s did not run: %v", which[1:], err)
		}
		added := 0
		for _, kv := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			name, _, _ := strings.Cut(kv, "=")
			if !strings.HasPrefix(name, "GIT_") || slices.Contains(had, kv) {
				continue
			}
			added++
			if !Dropped(name) {
				t.Errorf("git gave its %s %s, in neither Redirects nor Handed", which[1:], kv)
			}
		}
		if added == 0 {
			t.Errorf("git gave its %s no GIT_* variable: the test measures nothing", which[1:])
		}
	}
}

// TestDropUnsetsThem: Drop leaves none of the lists' variables, a
// configuration pair included, and keeps the others.
func TestDropUnsetsThem(t *testing.T) {
	for _, kv := range [][2]string{{"GIT_DIR", "/x/.git"}, {"GIT_WORK_TREE", "/x"}, {"GIT_INDEX_FILE", "/x/.git/index.lock"},
		{"GIT_CONFIG_KEY_0", "core.hooksPath"}, {"GIT_CONFIG_VALUE_0", "/x"}, {"GIT_SSL_CAINFO", "/ca.pem"}} {
		t.Setenv(kv[0], kv[1])
	}
	Drop()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if Dropped(name) {
			t.Errorf("%s is still set", kv)
		}
	}
	if os.Getenv("GIT_SSL_CAINFO") != "/ca.pem" {
		t.Error("GIT_SSL_CAINFO, in neither list, was dropped")
	}
}
