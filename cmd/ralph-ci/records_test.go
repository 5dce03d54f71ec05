package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recordsRoot is where the end-to-end tests' scripted agents and
// verification commands record what they saw (their prompts, what an
// attack reached): a folder outside every work tree, which Landlock
// denies them unless the config grants it (box.writable). The configs
// of the tests' repositories grant it with recordsGrant; a test that
// shows what Landlock denies uses a folder of its own outside it.
var recordsRoot = filepath.Join(os.TempDir(), "ralph-ci-e2e-records-"+strconv.Itoa(os.Getuid()))

// recordsGrant is the config line that lets the scripted agents write in
// recordsRoot.
var recordsGrant = "box: {writable: [" + recordsRoot + "]}\n"

// recordDir is a folder of t's below recordsRoot, removed when t ends.
func recordDir(t testing.TB) string {
	t.Helper()
	if err := os.MkdirAll(recordsRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(recordsRoot, strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		_ = os.Remove(recordsRoot) // the last test's removes it
	})
	return dir
}

// withRecords is the config yaml with recordsGrant added, when it has
// no box section of its own (nor is empty).
func withRecords(yaml string) string {
	if yaml == "" || strings.Contains(yaml, "box:") {
		return yaml
	}
	return strings.TrimRight(yaml, "\n") + "\n" + recordsGrant
}
