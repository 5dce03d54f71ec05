package delivery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// gitLeaverAgent leaves, one per rotation, a git state ralph-ci must not
// commit through: a conflicted merge, a conflicted rebase, HEAD moved to
// a commit that does not descend from the branch, then another branch
// checked out. From the fifth rotation on it claims DONE and changes
// nothing. At the start of every rotation it notes in $PROMPTS/../git
// what the checkout looks like.
const gitLeaverAgent = `cat > /dev/null
G="git -c user.name=agent -c user.email=agent@example.com -c commit.gpgsign=false"
state="HEAD=$(git symbolic-ref -q HEAD || echo detached)"
for f in MERGE_HEAD rebase-merge rebase-apply index.lock; do [ -e .git/$f ] && state="$state $f"; done
grep -l '^<<<<<<<' -r --include='*.txt' . >/dev/null 2>&1 && state="$state conflict-markers"
echo "$RALPH_ITERATION $state" >> "$PROMPTS/../git"
# side TEXT: a commit beside HEAD setting c.txt to TEXT; the branch does not move.
side() {
  b=$(git rev-parse HEAD)
  echo "$1" > c.txt && git add c.txt && $G commit -qm "$1" && git rev-parse HEAD
  git reset -q --hard "$b"
}
conflict() {
  theirs=$(side "theirs $RALPH_ITERATION")
  echo "ours $RALPH_ITERATION" > c.txt && git add c.txt && $G commit -qm "ours $RALPH_ITERATION"
}
case "$RALPH_ITERATION" in
1) conflict; $G merge "$theirs" >/dev/null 2>&1; echo "RALPH_STATUS: CONTINUE" ;;
2) conflict; $G rebase "$theirs" >/dev/null 2>&1; echo "RALPH_STATUS: CONTINUE" ;;
3) git reset -q --hard "$($G commit-tree 'HEAD^{tree}' -m 'a commit of no branch')"; echo "RALPH_STATUS: CONTINUE" ;;
4) git checkout -q -b other && echo other > other.txt && git add other.txt && $G commit -qm other; echo "RALPH_STATUS: CONTINUE" ;;
*) echo "<promise>IMPLEMENTATION_COMPLETE</promise>"; echo "RALPH_STATUS: DONE" ;;
esac
`

// TestDeliveryGitStatesTheAgentLeaves: in the simulated pull_request job,
// each rotation that leaves a merge or a rebase in progress, a moved HEAD
// or a switched branch is rejected with a reason naming it; nothing is
// committed through it (no conflict marker, no merge commit, no other
// branch reaches origin), and the next rotation starts on the branch, with
// no operation in progress.
func TestDeliveryGitStatesTheAgentLeaves(t *testing.T) {
	files := autoFiles()
	files["agent.sh"] = gitLeaverAgent
	w := e2e.NewCIWorld(t, e2e.RalphBinary(t), files)
	start := w.Rev("refs/heads/changes")
	w.Job("", "")
	_, stderr := w.Ralph(0, "run", "--deliver", "pr", "--log-format", "json")

	for it, want := range map[string]string{
		"1": "a merge in progress",
		"2": "a rebase in progress; HEAD detached at",
		"3": "branch changes moved to ",
		"4": "HEAD switched to branch other (the loop works on branch changes); a new branch other",
	} {
		line := logLine(stderr, `"iteration":`+it+`,`)
		e2e.Contains(t, "rotation "+it, line, `"status":"REJECTED"`, "git state left by the rotation: "+want, "ralph-ci commits nothing through it")
	}
	raw, _ := os.ReadFile(filepath.Join(filepath.Dir(w.Prompts), "git"))
	notes := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(notes) != 7 {
		t.Fatalf("the agent ran %d rotations, want 7:\n%s", len(notes), raw)
	}
	for _, n := range notes {
		if _, state, _ := strings.Cut(n, " "); state != "HEAD=refs/heads/changes" {
			t.Errorf("rotation %s started in %q, want on the branch with no operation in progress", n, state)
		}
	}
	handoffs, _ := filepath.Glob(filepath.Join(w.Dir, ".ralph", "handoffs", "*.md"))
	var handoff string
	for _, h := range handoffs {
		b, _ := os.ReadFile(h)
		handoff += string(b)
	}
	e2e.Contains(t, "the handoff", handoff, "git state left by the rotation: a merge in progress")

	// Nothing was committed through those states.
	head := w.Rev("refs/heads/changes")
	if merges := ghorigin.Git(t, w.Bare, "rev-list", "--merges", start+".."+head); merges != "" {
		t.Errorf("merge commits reached origin: %s", merges)
	}
	if log := ghorigin.Git(t, w.Bare, "log", "-p", start+".."+head); strings.Contains(log, "<<<<<<<") || strings.Contains(log, "a commit of no branch") {
		t.Errorf("a conflict or the stray commit reached origin:\n%s", log)
	}
	if ghorigin.Git(t, w.Bare, "merge-base", "--is-ancestor", start, head) != "" || w.Rev("refs/heads/other") != "" || w.Rev("other.txt") != "" {
		t.Error("the branch's history was rewritten or the other branch was pushed")
	}
	if got := ghorigin.Git(t, w.Bare, "show", head+":c.txt"); got != "ours 2" {
		t.Errorf("c.txt on the branch is %q, want the agent's own last commit (ours 2)", got)
	}
}

// logLine is the first line of a JSON log holding sub.
func logLine(log, sub string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
