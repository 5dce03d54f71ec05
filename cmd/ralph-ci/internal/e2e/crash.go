package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// ReadState reads the state file, with each spec's agent time (a
// measurement, which no two runs share) taken out.
func ReadState(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".ralph", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	return agentTime.ReplaceAllString(string(b), "")
}

var agentTime = regexp.MustCompile(`,\n\s*"seconds": [0-9.e+-]+`)
