package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// RecordsRoot is where the end-to-end tests' scripted agents and
// verification commands record what they saw (their prompts, what an
// attack reached): a folder outside every work tree, which Landlock
// denies them unless the config grants it (box.writable). The configs of
// the tests' repositories grant it with RecordsGrant (NewPRWorld and
// NewCIWorld add it, WithRecords); a test that shows what Landlock denies
// uses a folder of its own outside it.
var RecordsRoot = filepath.Join(os.TempDir(), "ralph-ci-e2e-records-"+strconv.Itoa(os.Getuid()))

// RecordsGrant is the config line that lets the scripted agents write in
// RecordsRoot.
var RecordsGrant = "box: {writable: [" + RecordsRoot + "]}\n"

// RecordDir is a folder of t's below RecordsRoot, mode 0777, removed
// when t ends.
func RecordDir(t testing.TB) string {
	t.Helper()
	if err := os.MkdirAll(RecordsRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(RecordsRoot, strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		_ = os.Remove(RecordsRoot) // the last test's removes it
	})
	// The agent's user of its own (box.user, where ralph-ci is root)
	// writes there too.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WithRecords is the config yaml with RecordsRoot made writable: a line
// of RecordsGrant, or an entry of its own box section written
// `box: {...}` on one line; as it is when it is empty or its box section
// lists writable paths already.
func WithRecords(yaml string) string {
	switch {
	case yaml == "" || strings.Contains(yaml, "writable:"):
		return yaml
	case strings.Contains(yaml, "box: {"):
		return strings.Replace(yaml, "box: {", "box: {writable: ["+RecordsRoot+"], ", 1)
	case strings.Contains(yaml, "box:"):
		return yaml
	}
	return strings.TrimRight(yaml, "\n") + "\n" + RecordsGrant
}
