package box

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
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// landlockProbe tries, as a boxed process ($WHO: the agent or the
// verification command), to write in a folder the test made outside the
// work tree ($OUTSIDE), in ralph-ci's own git folder of this run (the
// one whose config names this test's origin, $ORIGIN), in the work tree,
// its TMPDIR, its HOME and the folder the config grants ($ALLOWED), and
// notes each result in $ALLOWED/$WHO.
const landlockProbe = `try() { name=$1; shift; if "$@" 2>/dev/null; then echo "$name written"; else echo "$name denied"; fi >> "$ALLOWED/$WHO"; }
D=
for c in "$BASE"/git-*/config; do
  if grep -qxF "	url = \"$ORIGIN\"" "$c" 2>/dev/null; then D=$(dirname "$c"); fi
done
[ -n "$D" ] || echo "git folder not found" >> "$ALLOWED/$WHO"
try outside touch "$OUTSIDE/$WHO"
try git-folder mkdir "$D/probe-$WHO"
try git-merge-head sh -c "echo 0000000000000000000000000000000000000000 > '$D/MERGE_HEAD'"
try work-tree touch "probe-$WHO"
try tmpdir touch "$TMPDIR/$WHO"
try home mkdir -p "$HOME/.cache/$WHO"
case "$TMPDIR" in "$SCRATCH_PARENT"/ralph-ci-scratch-*) [ "$(stat -c %a "$TMPDIR")" = 700 ] && echo "tmpdir private" >> "$ALLOWED/$WHO";; esac
`

// landlockWorld is a repository whose agent and verification command
// run landlockProbe, with box extra in its config, and whose origin is a
// path of the test's (never fetched: it names the run's git folder).
func landlockWorld(t *testing.T, box string) (dir string, env []string) {
	t.Helper()
	root := t.TempDir()
	outside, allowed, home := filepath.Join(root, "outside"), filepath.Join(root, "allowed"), filepath.Join(root, "home")
	for _, d := range []string{outside, allowed, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	origin := "file://" + filepath.Join(root, "origin.git")
	config := "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
		"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n" +
		strings.ReplaceAll(box, "ALLOWED", allowed)
	dir = e2e.WriteRepoAt(t, filepath.Join(root, "repo"), map[string]string{
		"ralph.yaml": config, ".gitignore": ".ralph/\nprobe-*\n",
		"agent.sh": "cat > /dev/null\nWHO=agent\n" + landlockProbe + "echo finished > work.txt\necho '- [x] work.txt says finished'\n" +
			"echo '<promise>IMPLEMENTATION_COMPLETE</promise>'\necho 'RALPH_STATUS: DONE'\n",
		"check.sh": "WHO=verify\n" + landlockProbe + "grep -q finished work.txt\n",
		"specs/a.spec.md": "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
			"  coder:\n    promise: IMPLEMENTATION_COMPLETE\n    description: finished\n    verification_method: external\n" +
			"    verification_config: {command: sh check.sh, timeout: 60}\n---\n# A\n",
	})
	e2e.Git(t, dir, "remote", "add", "origin", origin)
	env = []string{"OUTSIDE=" + outside, "ALLOWED=" + allowed, "HOME=" + home, "ORIGIN=" + origin, "BASE=" + e2e.GitFolderBase(),
		"SCRATCH_PARENT=" + os.TempDir()}
	return dir, env
}

// runLandlock runs ralph-ci in dir with env added, to the end of its
// verification, and returns its log and what each probe noted.
func runLandlock(t *testing.T, dir string, env []string) (log, agent, verify string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2e.RalphBinary(t), "--log-format", "json", "run", "--max-rotations", "4")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	allowed := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "ALLOWED="); ok {
			allowed = v
		}
	}
	a, _ := os.ReadFile(filepath.Join(allowed, "agent"))
	v, _ := os.ReadFile(filepath.Join(allowed, "verify"))
	if !strings.Contains(stderr.String(), "all specs verified 3/3") {
		t.Errorf("the run did not verify (exit %d):\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	return stderr.String(), string(a), string(v)
}

// TestLandlockByDefault: with nothing asked for, the agent and the
// verification command are denied a folder outside the work tree and
// ralph-ci's own git folder of their run, and write the work tree, their
// TMPDIR (a private scratch folder of the run's, gone after it), their
// HOME and the folder box.writable grants; the run still verifies, and
// the log says once what Landlock holds.
func TestLandlockByDefault(t *testing.T) {
	if shepherd.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	// box.user off: Landlock alone, as where ralph-ci is not root (the
	// agent's user of its own would be denied much of this by uid too).
	dir, env := landlockWorld(t, "box: {user: off, writable: [ALLOWED]}\n")
	log, agent, verify := runLandlock(t, dir, env)
	for who, said := range map[string]string{"agent": agent, "verification command": verify} {
		if strings.Contains(said, "not found") {
			t.Errorf("the %s did not find its run's git folder:\n%s", who, said)
		}
		for _, want := range []string{"outside denied", "git-folder denied", "git-merge-head denied", "work-tree written", "tmpdir written", "home written", "tmpdir private"} {
			if !strings.Contains(said, want+"\n") {
				t.Errorf("the %s: want %q, it noted:\n%s", who, want, said)
			}
		}
	}
	if entries, _ := os.ReadDir(env[0][len("OUTSIDE="):]); len(entries) > 0 {
		t.Errorf("the folder outside holds %d entries", len(entries))
	}
	if n := strings.Count(log, "landlock: agents and verification commands may change only"); n != 1 {
		t.Errorf("the log says what Landlock holds %d times, want once:\n%s", n, log)
	}
	if scratch, _ := filepath.Glob(filepath.Join(os.TempDir(), "ralph-ci-scratch-*")); len(scratch) > 0 {
		for _, s := range scratch { // other tests' runs may be under way: only this run's must be gone
			if _, err := os.Stat(filepath.Join(s, "agent")); err == nil {
				t.Errorf("the run's scratch folder %s is left", s)
			}
		}
	}
}

// TestLandlockOff: with box: {landlock: off} the same probes write
// outside the work tree (Landlock holds nothing), and the log says what
// that costs.
func TestLandlockOff(t *testing.T) {
	if shepherd.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	dir, env := landlockWorld(t, "box: {user: off, landlock: off}\n")
	log, agent, _ := runLandlock(t, dir, env)
	if !strings.Contains(agent, "outside written\n") || !strings.Contains(agent, "tmpdir private\n") {
		t.Errorf("with Landlock off the agent noted:\n%s", agent)
	}
	if !strings.Contains(log, "landlock: off (box.landlock)") {
		t.Errorf("the log does not say Landlock is off:\n%s", log)
	}
}
