package delivery

import (
	"bufio"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// ralph-ci's own git folder (internal/git's private directory, under
// /var/tmp/ralph-ci-UID): what git reads there, and what an agent that
// writes there gains.

// TestGitReadsOnlyWhatRalphWrote runs a delivery job (two rotations, the
// state pushed, then a second job that restores it) under strace and
// lists every file ralph-ci's git opens, stats or probes in ralph-ci's git
// folder: each is one that ralph-ci or its git wrote in that run, or one
// of internal/git.ReadByGit, which the sweep removes before each command
// (TestAgentPlantsInRalphsGitFolder plants each of them).
func TestGitReadsOnlyWhatRalphWrote(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("strace is missing (.ci/run installs it)")
		}
		t.Skip("no strace")
	}
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles, e2e.HTTPOrigin)
	traces := t.TempDir()
	run := func(n int, args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, strace, append([]string{"-f", "--seccomp-bpf", "-qq", "-e", "trace=%file",
			"-o", filepath.Join(traces, strconv.Itoa(n)+".log"), "--", w.Bin}, args...)...)
		cmd.Dir, cmd.Env = w.Dir, w.Env()
		if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 3 {
			t.Fatalf("ralph-ci %s under strace: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	w.Job("", "")
	run(1, "run", "--deliver", "pr", "--max-rotations", "2")
	w.PersonPushes()
	w.Job("", "")
	run(2, "run", "--deliver", "pr", "--max-rotations", "2")

	read, written := map[string]bool{}, map[string]bool{}
	for n := 1; n <= 2; n++ {
		traceGitFolder(t, filepath.Join(traces, strconv.Itoa(n)+".log"), read, written)
	}
	if len(read) == 0 {
		t.Fatal("the trace shows no file of ralph-ci's git folder read: was the folder elsewhere?")
	}
	var foreign, listed []string
	for rel := range read {
		switch {
		case written[rel]:
		case igit.Listed(rel), !strings.Contains(rel, "/") && (igit.IsID(rel) || rel == "changes"):
			listed = append(listed, rel)
		default:
			foreign = append(foreign, rel)
		}
	}
	slices.Sort(foreign)
	slices.Sort(listed)
	t.Logf("%d paths read in ralph-ci's git folder: %d written by ralph-ci or its git, %d of ReadByGit (swept): %s",
		len(read), len(read)-len(listed)-len(foreign), len(listed), strings.Join(listed, " "))
	if len(foreign) > 0 {
		t.Errorf("git reads files in ralph-ci's git folder that ralph-ci neither writes nor lists in internal/git.ReadByGit (add them, and a plant to the attack test): %s", strings.Join(foreign, " "))
	}
}

// syscallLine is one line of strace -f: the pid, the call, its arguments.
var syscallLine = regexp.MustCompile(`^\d+\s+(\w+)\((.*)$`)

// quoted are the strings of a line of strace.
var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// traceGitFolder reads a strace log and adds the paths (relative to their
// git directory) read and written in ralph-ci's git folder.
func traceGitFolder(t *testing.T, log string, read, written map[string]bool) {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prefix := e2e.GitFolderBase() + "/git-"
	rel := func(p string) (string, bool) {
		rest, ok := strings.CutPrefix(filepath.Clean(p), prefix)
		if !ok {
			return "", false
		}
		_, r, _ := strings.Cut(rest, "/")
		return r, r != ""
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := syscallLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		call, args := m[1], m[2]
		var paths []string
		for _, q := range quoted.FindAllStringSubmatch(args, -1) {
			paths = append(paths, q[1])
		}
		if len(paths) == 0 {
			continue
		}
		write := false
		switch call {
		case "open", "openat", "openat2", "creat":
			write = call == "creat" || strings.Contains(args, "O_CREAT") || strings.Contains(args, "O_WRONLY") || strings.Contains(args, "O_RDWR")
		case "mkdir", "mkdirat", "symlink", "symlinkat":
			write = true
		case "rename", "renameat", "renameat2", "link", "linkat":
			paths, write = paths[len(paths)-1:], true
		case "unlink", "unlinkat", "rmdir", "chmod", "fchmodat", "execve":
			continue
		}
		for _, p := range paths {
			if r, ok := rel(p); ok {
				if write {
					written[r] = true
				} else {
					read[r] = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// plantAgent plants, in its first two rotations, each of $PLANTS in the
// git folder of ralph-ci's whose config names this test's origin (never
// another run's), then works.
const plantAgent = `cat > /dev/null
ORIGIN=$(git remote get-url origin)
export ORIGIN
if [ "$RALPH_ITERATION" -le 2 ]; then
  sh "$OUT/plant.sh" >> "$OUT/plant.log" 2>&1
  echo "work of iteration $RALPH_ITERATION" >> work.txt
  echo "RALPH_STATUS: CONTINUE"
else
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
`

// plantScript plants each of $PLANTS (internal/git.ReadByGit) in the git
// folder $D, naming the agent's commit $E where git expects a commit, a
// program of the agent's ($CANARY) where git runs one, and the agent's
// repository ($EVIL) where git expects a URL.
const plantScript = `D=
[ -n "$ORIGIN" ] || { echo "no origin"; exit 0; }
for c in "$BASE"/git-*/config; do
  if grep -qxF "	url = \"$ORIGIN\"" "$c" 2>/dev/null; then D=$(dirname "$c"); fi
done
if [ -z "$D" ]; then echo "no git folder of ralph-ci's names $ORIGIN"; exit 0; fi
E=$(git -c user.name=a -c user.email=a@a commit-tree "HEAD^{tree}" -p HEAD -m "the agent's parent")
echo "$E" > "$OUT/evil-commit"
n=0
for p in $PLANTS; do
  rel=$(echo "$p" | tr '*' X); rel=${rel%/}
  case "$p" in
    "<revision>") ;;
    */) mkdir -p "$D/$rel" 2>/dev/null; f="$D/$rel/origin" ;;
    *) mkdir -p "$(dirname "$D/$rel")" 2>/dev/null; rm -rf "$D/$rel" 2>/dev/null; f="$D/$rel" ;;
  esac
  case "$p" in
    remotes/) printf 'URL: %s\nPush: +refs/heads/*:refs/heads/*\n' "$EVIL" > "$f" ;;
    branches/) echo "$EVIL" > "$f" ;;
    hooks/) for h in $HOOKS; do cp "$CANARY" "$D/hooks/$h"; done ;;
    sequencer/) printf 'exec %s\n' "$CANARY" > "$D/sequencer/todo" && echo "$E" > "$D/sequencer/head" ;;
    rebase-merge/) printf 'exec %s\n' "$CANARY" > "$D/rebase-merge/git-rebase-todo" && echo "$E" > "$D/rebase-merge/onto" ;;
    rebase-apply/) echo "$E" > "$D/rebase-apply/orig-head" ;;
    rr-cache/) mkdir -p "$D/rr-cache/0000000000000000000000000000000000000000" && echo evil > "$D/rr-cache/0000000000000000000000000000000000000000/postimage" ;;
    info/grafts) echo "$(git rev-parse HEAD) $E" > "$f" ;;
    commondir) echo "$OUT" > "$f" ;;
    refs/) mkdir -p "$D/refs/remotes/origin" "$D/refs/heads" "$D/refs/tags" && echo "$E" > "$D/refs/remotes/origin/changes" && echo "$E" > "$D/refs/heads/changes" && echo "$E" > "$D/refs/tags/changes" && echo "$E" > "$D/refs/changes" ;;
    "<revision>") echo "$E" > "$D/changes" && echo "$E" > "$D/$(git rev-parse HEAD)" && echo "$E" > "$D/origin" ;;
    packed-refs) printf '%s refs/heads/changes\n%s refs/remotes/origin/changes\n' "$E" "$E" > "$f" ;;
    logs/) mkdir -p "$D/logs/refs/heads" && echo "$E" > "$D/logs/HEAD" ;;
    *) echo "$E" > "$f" ;;
  esac && n=$((n + 1)) || echo "denied: $p"
done
echo "planted $n in $D"
`

// TestAgentPlantsInRalphsGitFolder: an agent of ralph-ci's own user (no
// Landlock, no user of its own: what holds without the box) plants each
// file git reads in ralph-ci's git folder (internal/git.ReadByGit) in
// its rotations; ralph-ci's commits are its own all the same: one
// parent each, none of the agent's commits, no program of the agent's
// run, nothing pushed elsewhere, the work delivered.
func TestAgentPlantsInRalphsGitFolder(t *testing.T) {
	for _, c := range []struct {
		name   string
		plants []string
	}{
		{"MERGE_HEAD, the attack seen", []string{"MERGE_HEAD"}},
		{"every file git reads", igit.ReadByGit},
	} {
		t.Run(c.name, func(t *testing.T) { plantInRalphsGitFolder(t, c.plants) })
	}
}

func plantInRalphsGitFolder(t *testing.T, plants []string) {
	bin := e2e.RalphBinary(t)
	files := maps.Clone(e2e.CIRepoFiles)
	files["agent.sh"] = plantAgent
	// Landlock off and box.user off: what holds without either (the
	// agent's user of its own could not reach the folder at all).
	files["ralph.yaml"] += "box: {landlock: off, user: off}\n"
	out := t.TempDir()
	log := filepath.Join(out, "canary.log")
	if err := os.WriteFile(filepath.Join(out, "canary"), []byte(strings.Replace(canary, "%s", log, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "plant.sh"), []byte(plantScript), 0o644); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(out, "evil-origin.git")
	ghorigin.Git(t, out, "init", "--quiet", "--bare", evil)

	w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
	w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "CANARY="+filepath.Join(out, "canary"), "EVIL=file://"+evil,
		"BASE="+e2e.GitFolderBase(), "PLANTS="+strings.Join(plants, " "), "HOOKS="+gitHooks)
	w.Job("", "")
	before := w.HeadSHA
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, stdout, stderr := w.Command(ctx, "run", "--deliver", "pr", "--max-rotations", "2")
	_ = cmd.Run()
	planted, _ := os.ReadFile(filepath.Join(out, "plant.log"))
	t.Logf("exit %d; the plant said:\n%s", cmd.ProcessState.ExitCode(), planted)
	if !strings.Contains(string(planted), "planted "+strconv.Itoa(len(plants))+" in ") {
		t.Fatalf("the agent did not plant all %d in ralph-ci's git folder (what this test is about):\n%s", len(plants), planted)
	}
	evilCommit, _ := os.ReadFile(filepath.Join(out, "evil-commit"))

	if raw, _ := os.ReadFile(log); len(raw) > 0 {
		t.Errorf("a program the agent planted ran:\n%s", raw)
	}
	if refs := ghorigin.Git(t, evil, "for-each-ref"); refs != "" {
		t.Errorf("ralph-ci pushed to the agent's repository:\n%s", refs)
	}
	tip := w.Rev("refs/heads/changes")
	if tip == before {
		t.Fatalf("nothing delivered (exit %d):\n%s\n%s", cmd.ProcessState.ExitCode(), stdout, stderr)
	}
	for _, line := range strings.Split(ghorigin.Git(t, w.Bare, "rev-list", "--parents", before+".."+tip), "\n") {
		if f := strings.Fields(line); len(f) != 2 {
			t.Errorf("ralph-ci's commit %s has parents %v, want one", f[0], f[1:])
		}
	}
	if e := strings.TrimSpace(string(evilCommit)); e == "" || exec.Command("git", "-C", w.Bare, "cat-file", "-e", e).Run() == nil {
		t.Errorf("the agent's commit %q reached origin", e)
	}
	if work := ghorigin.Git(t, w.Bare, "show", tip+":work.txt"); work != "work of iteration 1\nwork of iteration 2" {
		t.Errorf("work delivered: %q", work)
	}
}

// crossAgent, in its first rotation, waits until the other run's agent
// runs too, then tries to write in the other run's git folder (the one
// whose config names $OTHER, the other run's origin) and says how it
// went in $SYNC/$ME.
const crossAgent = `cat > /dev/null
if [ "$RALPH_ITERATION" = 1 ]; then
  touch "$SYNC/ready-$ME"
  i=0; while [ ! -e "$SYNC/ready-$YOU" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  D=
  for c in "$BASE"/git-*/config; do
    if grep -qxF "	url = \"$OTHER\"" "$c" 2>/dev/null; then D=$(dirname "$c"); fi
  done
  E=$(git -c user.name=a -c user.email=a@a commit-tree "HEAD^{tree}" -p HEAD -m "the other agent's parent")
  if [ -z "$D" ]; then echo "not found" > "$SYNC/$ME"
  elif echo "$E" > "$D/MERGE_HEAD" 2>/dev/null || mkdir "$D/probe-$ME" 2>/dev/null; then echo "wrote in $D" > "$SYNC/$ME"
  else echo "denied" > "$SYNC/$ME"; fi
  touch "$SYNC/tried-$ME"
  i=0; while [ ! -e "$SYNC/tried-$YOU" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
fi
echo "work of iteration $RALPH_ITERATION" >> work.txt
echo "RALPH_STATUS: CONTINUE"
`

// TestTwoRunsOfOneUser: two runs of one user at once (two pull
// requests' jobs on one runner), each agent tries to write in the other
// run's git folder while that run is in its rotation: neither reaches it
// (Landlock denies the agents ralph-ci's folder; where ralph-ci has root
// the agents also run as a user of their own), and each run delivers
// commits of its own, one parent each.
func TestTwoRunsOfOneUser(t *testing.T) {
	if shepherd.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock: two runs of one user are kept apart only by the agent's own user (docs/security.md)")
	}
	bin := e2e.RalphBinary(t)
	files := maps.Clone(e2e.CIRepoFiles)
	files["agent.sh"] = crossAgent
	files["ralph.yaml"] += "box: {user: off, writable: [" + e2e.RecordsRoot + "]}\n" // Landlock without the agent's user of its own, which keeps them apart by uid too
	sync := e2e.RecordDir(t)                                                         // the agents write there
	worlds := map[string]*e2e.CIWorld{"a": e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin), "b": e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)}
	for me, w := range worlds {
		you := map[string]string{"a": "b", "b": "a"}[me]
		w.ExtraEnv = append(w.ExtraEnv, "SYNC="+sync, "ME="+me, "YOU="+you, "BASE="+e2e.GitFolderBase())
		w.Job("", "")
	}
	for me, w := range worlds {
		you := map[string]string{"a": "b", "b": "a"}[me]
		w.ExtraEnv = append(w.ExtraEnv, "OTHER="+originURL(t, worlds[you]))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	type result struct {
		me     string
		code   int
		stderr string
	}
	done := make(chan result, 2)
	for me, w := range worlds {
		cmd, _, stderr := w.Command(ctx, "run", "--deliver", "pr", "--max-rotations", "2")
		go func() {
			_ = cmd.Run()
			done <- result{me, cmd.ProcessState.ExitCode(), stderr.String()}
		}()
	}
	for range worlds {
		r := <-done
		w := worlds[r.me]
		said, _ := os.ReadFile(filepath.Join(sync, r.me))
		if strings.TrimSpace(string(said)) != "denied" {
			t.Errorf("run %s's agent in the other run's git folder: %q, want denied", r.me, said)
		}
		tip := w.Rev("refs/heads/changes")
		if tip == w.HeadSHA {
			t.Errorf("run %s delivered nothing (exit %d):\n%s", r.me, r.code, r.stderr)
			continue
		}
		for _, line := range strings.Split(ghorigin.Git(t, w.Bare, "rev-list", "--parents", w.HeadSHA+".."+tip), "\n") {
			if f := strings.Fields(line); len(f) != 2 {
				t.Errorf("run %s's commit %s has parents %v, want one", r.me, f[0], f[1:])
			}
		}
	}
}

// originURL is origin's URL in a checkout of w, as ralph-ci's git folder
// names it.
func originURL(t *testing.T, w *e2e.CIWorld) string {
	t.Helper()
	out, err := exec.Command("git", "-C", w.Dir, "remote", "get-url", "origin").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
