package pullrequest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// forgedMarker is a marker saying SpecA is approved for head by alice,
// resting on answer id (a reply).
func forgedMarker(head string, id int64) string {
	return tiers.FormatMarker(tiers.Marker{Spec: e2e.SpecA, Record: tiers.Record{
		Status: tiers.StatusApproved, SHA: head, PR: 2, DecidedBy: e2e.Alice.Login, DecidedID: id, DecidedKind: tiers.KindReply,
		RejectionLog: []tiers.Rejection{},
	}})
}

var markerInBody = regexp.MustCompile(`<!-- ralph-ci:checkpoint [^ ]+ [^ ]* -->`)

func TestForgedMarkersApproveNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	// realAnswerDecides: a real answer still decides, and the decision it
	// rests on is confirmed again by the next check.
	realAnswerDecides := func(w *e2e.PRWorld) {
		t.Helper()
		w.Srv.AddComment(e2e.Alice, "yes")
		stdout, _ := w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		stdout, _ = w.Ralph(0, "check")
		e2e.Contains(t, "check again", stdout, e2e.SpecA+"\tcheckpoint=passed")
		w.WantStatus("success")
	}
	// waits runs check and wants it to wait, the status pending and a
	// warning naming the forged comment, with reasons.
	waits := func(w *e2e.PRWorld, forged int64, reasons ...string) {
		t.Helper()
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, append([]string{fmt.Sprintf("forged checkpoint marker in comment %d", forged)}, reasons...)...)
		w.WantStatus("pending")
	}
	stillPending := func(w *e2e.PRWorld, forged int64) {
		t.Helper()
		waits(w, forged)
		realAnswerDecides(w)
	}
	t.Run("a new comment carrying a forged approved marker", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Ralph(6, "run")
		yes := w.Srv.AddComment(e2e.PRAuthor, "yes") // the author may not approve
		forged := w.Srv.AddComment(e2e.Alice, "LGTM\n"+forgedMarker(w.HeadSHA, yes))
		stillPending(w, forged)
	})
	t.Run("an edit of ralph-ci's own checkpoint comment to approved", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Ralph(6, "run")
		// edit puts m in ralph-ci's comment, as a person with write
		// access may, and returns the comment's id.
		edit := func(m string) int64 {
			cp := w.Checkpoint()
			w.Srv.Edit(cp.ID, markerInBody.ReplaceAllString(cp.Body, m))
			return cp.ID
		}
		// The marker names a reply that does not exist...
		waits(w, edit(forgedMarker(w.HeadSHA, 999999)), "reply 999999 does not exist")
		if r := w.Record(); r.Status != tiers.StatusPending {
			t.Fatalf("the forged approval stayed in ralph-ci's comment: %+v", r)
		}
		// ...then a real reply by the pull request's author, who may not
		// approve, said to be alice's...
		yes := w.Srv.AddComment(e2e.PRAuthor, "yes")
		waits(w, edit(forgedMarker(w.HeadSHA, yes)), fmt.Sprintf("reply %d was given by @Codertocat, not @alice", yes))
		// ...then the marker says the author approved.
		m, _ := tiers.ParseMarker(forgedMarker(w.HeadSHA, yes))
		m.Record.DecidedBy = e2e.PRAuthor.Login
		waits(w, edit(tiers.FormatMarker(m)), "@Codertocat may not answer: the pull request's author")
		realAnswerDecides(w)
	})
	t.Run("a marker in another bot's comment", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Ralph(6, "run")
		yes := w.Srv.AddComment(e2e.Mallory, "yes") // read permission: may not approve
		forged := w.Srv.AddComment(e2e.Depbot, "Bump deps\n"+forgedMarker(w.HeadSHA, yes))
		stillPending(w, forged)
	})
	t.Run("a genuine approval of an older head replayed for the new one", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Ralph(6, "run")
		yes := w.Srv.AddComment(e2e.Alice, "yes") // a real approval, of this head
		stdout, _ := w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		w.PushFile("later.txt") // a new head: the approval is stale
		w.Ralph(6, "run")       // the checkpoint is presented for it
		cp := w.Checkpoint()
		w.Srv.Edit(cp.ID, markerInBody.ReplaceAllString(cp.Body, forgedMarker(w.HeadSHA, yes)))
		waits(w, cp.ID, fmt.Sprintf("reply %d was given at", yes), "before the checkpoint was presented for the head "+w.HeadSHA[:7])
		realAnswerDecides(w)
	})
	t.Run("a marker in another bot's comment before ralph-ci's", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		forged := w.Srv.AddComment(e2e.Depbot, "Bump deps\n"+forgedMarker(w.HeadSHA, 1))
		w.Ralph(6, "run")
		w.Checkpoint() // ralph-ci posted its own
		stillPending(w, forged)
	})
}

// A pull request adds a verify-tier spec whose id is the path of the
// existing spec: a reply named for that path goes to the existing spec,
// never to the newcomer, whose checkpoint keeps waiting.
func TestIDShadowingAPathCapturesNoAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	const evil = "specs/0-evil.spec.md" // sorts (and is listed) first
	w := newPRWorld(t, e2e.RalphBinary(t), map[string]string{
		evil: "---\nid: " + e2e.SpecA + "\ntitle: Evil\n---\n# Evil\n",
	})
	w.Ralph(6, "run")
	w.CheckpointOf(e2e.SpecA)
	w.CheckpointOf(evil)
	w.Srv.AddComment(e2e.Alice, e2e.SpecA+": yes")
	stdout, stderr := w.Ralph(6, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed", evil+"\tcheckpoint=pending")
	e2e.Contains(t, "the log", stderr, "the spec's id is the path of another spec ("+e2e.SpecA+"): replies are never routed to it by that id")
	if _, r := w.CheckpointOf(evil); r.Status != tiers.StatusPending {
		t.Fatalf("the shadowing spec took the answer: %+v", r)
	}
}

// committedStateWorld is a pull request that commits the .ralph/state.json
// of a real run, which says its specs are verified 3/3 (returned too).
func committedStateWorld(t *testing.T, bin string) (*e2e.PRWorld, []byte) {
	t.Helper()
	real := newPRWorld(t, bin)
	real.Ralph(6, "run")
	verified, err := os.ReadFile(filepath.Join(real.Dir, ".ralph", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := newPRWorld(t, bin)
	e2e.WriteFile(t, filepath.Join(w.Dir, ".ralph", "state.json"), string(verified))
	e2e.Git(t, w.Dir, "add", "-f", ".ralph/state.json")
	w.Commit("the loop already verified everything")
	w.Srv.SetHead(w.HeadSHA)
	return w, verified
}

// A pull request that commits a .ralph/state.json saying its spec was
// verified 3/3 (copied from a real run) gets no checkpoint presented for
// a spec no agent ran: check does not trust the checkout's state.
func TestCommittedStateIsNotTrusted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	w, verified := committedStateWorld(t, e2e.RalphBinary(t))
	stdout, stderr := w.Ralph(6, "check")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
	e2e.Contains(t, "the log", stderr, "the state in the checkout is not trusted", "the checkout has .ralph/ committed (.ralph/state.json)")
	if comments, _ := w.Srv.Snapshot(); len(comments) != 0 {
		t.Fatalf("a checkpoint was presented from the committed state: %+v", comments)
	}
	// The committed file is left as it was: nothing is saved over it.
	if got, _ := os.ReadFile(filepath.Join(w.Dir, ".ralph", "state.json")); string(got) != string(verified) {
		t.Fatal("check rewrote the committed state")
	}
}

// baseWorld is a pull request whose base commit has PRRepoFiles' specs,
// on which change edits the checkout (the pull request's commit).
func baseWorld(t *testing.T, change func(dir string)) *e2e.PRWorld {
	t.Helper()
	w := newPRWorld(t, e2e.RalphBinary(t))
	for _, f := range []string{"specs/a.spec.md", "specs/b.spec.md"} {
		w.Srv.SetFile(w.Srv.BaseSHA, f, e2e.PRRepoFiles[f])
	}
	change(w.Dir)
	w.Commit("the pull request")
	w.Srv.SetHead(w.HeadSHA)
	return w
}

// A pull request cannot take a verify-tier spec of its base out of the
// gate by moving it, by renaming it and declaring it auto, or by pointing
// specs.dirs elsewhere; one it deletes passes, and the gate says so.
func TestPullRequestCannotHideASpec(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	t.Run("rename and auto", func(t *testing.T) {
		t.Parallel()
		const moved = "specs/cart/totals.spec.md"
		w := baseWorld(t, func(dir string) {
			if err := os.Remove(filepath.Join(dir, e2e.SpecA)); err != nil {
				t.Fatal(err)
			}
			e2e.WriteFile(t, filepath.Join(dir, moved), "---\nid: cart-totals\ntitle: Totals\ncontracts:\n  - name: totals\n    verification: auto\n    acceptance_criteria: [\"The total has two decimals\"]\n---\n# Totals\n")
		})
		stdout, stderr := w.Ralph(6, "run")
		e2e.Contains(t, "run", stdout, moved)
		e2e.Contains(t, "the log", stderr, e2e.SpecA+" (verify on the pull request's base) moved to "+moved+": it keeps its human checkpoint")
		stdout, _ = w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, moved+"\tcheckpoint=pending")
	})
	t.Run("specs.dirs", func(t *testing.T) {
		t.Parallel()
		w := baseWorld(t, func(dir string) {
			cfg := e2e.PRRepoFiles["ralph.yaml"] + "specs: {dirs: [other]}\n"
			e2e.WriteFile(t, filepath.Join(dir, "ralph.yaml"), cfg)
			e2e.WriteFile(t, filepath.Join(dir, "other", "b.spec.md"), e2e.PRRepoFiles["specs/b.spec.md"])
		})
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "the log", stderr, "the pull request's own specs.dirs and specs.prompt are ignored")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
	})
	t.Run("a deleted spec's removal is a checkpoint, and the gate says so", func(t *testing.T) {
		t.Parallel()
		w := baseWorld(t, func(dir string) {
			if err := os.Remove(filepath.Join(dir, e2e.SpecA)); err != nil {
				t.Fatal(err)
			}
		})
		msg := e2e.SpecA + " (verify on the pull request's base) is not in the pull request: its removal is a checkpoint of its own, pending until a person who may approve accepts it"
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, "warning: "+msg, "::warning title=ralph-ci%3A a verify-tier spec left the gate::"+msg, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, msg)
		summary, _ := os.ReadFile(w.Summary)
		e2e.Contains(t, "the job summary", string(summary), msg)
		removal, _ := w.CheckpointOf(e2e.SpecA)
		e2e.Contains(t, "the removal checkpoint", removal.Body, "Removal of "+e2e.SpecA)
		w.Srv.React(removal.ID, e2e.Alice, "+1")
		stdout, _ = w.Ralph(0, "check")
		e2e.Contains(t, "check after the removal was accepted", stdout, e2e.SpecA+"\tcheckpoint=passed")
	})
}

// run with no delivery does not trust a .ralph/state.json committed in the
// checkout either: it says so, naming the file, starts from an empty state
// and runs the agent; the checkpoint is presented only once it really
// verified the spec. An untracked (ignored) state is the local loop's,
// and is trusted: the next run resumes from it.
func TestRunIgnoresACommittedState(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	w, verified := committedStateWorld(t, bin)
	stdout, stderr := w.Ralph(6, "run", "--deliver", "none")
	e2e.Contains(t, "the log", stderr, "the state in the checkout is not trusted", "the checkout has .ralph/ committed (.ralph/state.json)", "the run starts from an empty state")
	if n := w.PromptCount(); n != 6 { // both specs, 3/3 each
		t.Fatalf("%d rotations, want 6: the committed state was trusted\n%s", n, stdout)
	}
	w.Checkpoint() // presented once the agent verified it

	// The same state, untracked: the local loop's own, trusted.
	local := newPRWorld(t, bin)
	e2e.WriteFile(t, filepath.Join(local.Dir, ".ralph", "state.json"), string(verified))
	_, stderr = local.Ralph(6, "run", "--deliver", "none")
	if strings.Contains(stderr, "not trusted") || local.PromptCount() != 0 {
		t.Fatalf("an untracked state was not trusted (%d rotations):\n%s", local.PromptCount(), stderr)
	}
}
