package delivery

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// submoduleAgent embeds a repository of its own (lib, added to the index
// as a submodule would be) in its first rotation and plants in lib's own
// configuration, which git reads whenever it runs inside lib: core.fsmonitor
// and every hook name the canary. It runs no git after planting. In the
// second rotation it only edits a file in lib, a change git status reports
// only by running git status inside lib.
const submoduleAgent = `cat > /dev/null
case "$RALPH_ITERATION" in
1) git init -q lib && echo v1 > lib/x.txt && git -C lib add x.txt &&
   git -C lib -c user.name=a -c user.email=a@a commit -qm lib && git add lib || exit 1
   git -C lib config core.fsmonitor "$CANARY"
   for h in ` + gitHooks + `; do cp "$CANARY" "lib/.git/hooks/$h"; done
   echo "RALPH_STATUS: CONTINUE" ;;
2) echo v2 > lib/x.txt; echo "RALPH_STATUS: CONTINUE" ;;
*) echo "<promise>IMPLEMENTATION_COMPLETE</promise>"; echo "RALPH_STATUS: DONE" ;;
esac
`

// TestAgentPlantsInSubmodule: ralph-ci's git never runs inside a submodule
// (change detection passes --ignore-submodules=dirty and describes each
// submodule itself, through the doorway), so the agent's fsmonitor and
// hooks there never run, while an edit inside the submodule still counts
// as a change.
func TestAgentPlantsInSubmodule(t *testing.T) {
	bin := e2e.RalphBinary(t)
	out := t.TempDir()
	log := filepath.Join(out, "canary.log")
	canaryPath := filepath.Join(out, "canary")
	if err := os.WriteFile(canaryPath, []byte(strings.Replace(canary, "%s", log, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n",
		"agent.sh":        submoduleAgent,
		".gitignore":      ".ralph/\n",
		"specs/a.spec.md": "# A\n",
	})
	env := append(os.Environ(), "CANARY="+canaryPath, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--log-format", "json", "run", "--deliver", "commit", "--max-rotations", "3")
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	t.Logf("exit %d", cmd.ProcessState.ExitCode())

	if raw, err := os.ReadFile(log); err == nil {
		t.Errorf("ralph-ci's git ran the agent's program in the submodule:\n%s", raw)
	}
	var second string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, `"iteration":2,`) && strings.Contains(line, `"changed":`) {
			second = line
		}
	}
	if second == "" || strings.Contains(second, `"changed":0`) {
		t.Errorf("the edit inside the submodule was not seen as a change: %q\n%s", second, stderr.String())
	}
	if tree, err := exec.Command("git", "-C", dir, "ls-tree", "HEAD", "lib").Output(); err != nil || !strings.HasPrefix(string(tree), "160000 ") {
		t.Errorf("lib is not committed as a submodule: %q %v", tree, err)
	}

	// The control: the plant works, git status recursing into lib runs it.
	status := exec.Command("git", "-C", dir, "status", "--porcelain=v2", "--ignore-submodules=none")
	status.Env = env
	if out, err := status.CombinedOutput(); err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if _, err := os.Stat(log); err != nil {
		t.Errorf("the control git status did not run the canary either, so the test shows nothing: %v", err)
	}
}
