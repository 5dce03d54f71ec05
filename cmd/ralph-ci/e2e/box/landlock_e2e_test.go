package box

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// TestRunDeniesAgentsGitDir: with RALPH_LANDLOCK=1, the agent cannot make
// anything in ralph-ci's own git folder (/var/tmp/ralph-ci-UID) and still
// writes its work; run says so in its log.
func TestRunDeniesAgentsGitDir(t *testing.T) {
	if shepherd.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	out := t.TempDir()
	probe := "probe-" + strconv.Itoa(os.Getpid())
	base := filepath.Join("/var/tmp", "ralph-ci-"+strconv.Itoa(os.Getuid()))
	t.Cleanup(func() { os.RemoveAll(filepath.Join(base, probe)) })
	agent := `cat > /dev/null
if mkdir "` + filepath.Join(base, probe) + `" 2>/dev/null; then echo made > "$OUT/probe"; else echo denied > "$OUT/probe"; fi
echo work > work.txt
echo "RALPH_STATUS: CONTINUE"
`
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
			"box: {user: off}\n", // Landlock alone: the agent's user of its own would deny it by uid
		"agent.sh": agent, "PROMPT.md": "# A\n", ".gitignore": ".ralph/\n",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2e.RalphBinary(t), "--log-format", "json", "run", "--max-rotations", "1")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "RALPH_LANDLOCK=1", "OUT="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	if got, _ := os.ReadFile(filepath.Join(out, "probe")); strings.TrimSpace(string(got)) != "denied" {
		t.Errorf("the agent's mkdir in ralph-ci's git folder: %q, want denied\n%s", got, stderr.String())
	}
	if work, _ := os.ReadFile(filepath.Join(dir, "work.txt")); string(work) != "work\n" {
		t.Errorf("the agent could not write its work: %q", work)
	}
	if !strings.Contains(stderr.String(), "landlock: agents and verification commands cannot write") {
		t.Errorf("no log line says Landlock is on:\n%s", stderr.String())
	}
}
