package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// A checkpoint marker is a cache, not the authority: whoever writes one
// (in a new comment, in an edit of ralph-ci's own comment, in another
// bot's comment) cannot create an approval. Through the binary and the
// fake GitHub, after `run` presented the checkpoint of specA.

// forgedMarker is a marker saying specA is approved for head by alice,
// resting on answer id (a reply).
func forgedMarker(head string, id int64) string {
	return tiers.FormatMarker(tiers.Marker{Spec: specA, Record: tiers.Record{
		Status: tiers.StatusApproved, SHA: head, PR: 2, DecidedBy: alice.Login, DecidedID: id, DecidedKind: tiers.KindReply,
		RejectionLog: []tiers.Rejection{},
	}})
}

var markerInBody = regexp.MustCompile(`<!-- ralph-ci:checkpoint [^ ]+ [^ ]* -->`)

func TestForgedMarkersApproveNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := ralphBinary(t)
	// realAnswerDecides: a real answer still decides, and the decision it
	// rests on is confirmed again by the next check.
	realAnswerDecides := func(w *prWorld) {
		t.Helper()
		w.srv.AddComment(alice, "yes")
		stdout, _ := w.ralph(0, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=passed")
		stdout, _ = w.ralph(0, "check")
		contains(t, "check again", stdout, specA+"\tcheckpoint=passed")
		w.wantStatus("success")
	}
	// waits runs check and wants it to wait, the status pending and a
	// warning naming the forged comment, with reasons.
	waits := func(w *prWorld, forged int64, reasons ...string) {
		t.Helper()
		stdout, stderr := w.ralph(6, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=pending")
		contains(t, "the log", stderr, append([]string{fmt.Sprintf("forged checkpoint marker in comment %d", forged)}, reasons...)...)
		w.wantStatus("pending")
	}
	stillPending := func(w *prWorld, forged int64) {
		t.Helper()
		waits(w, forged)
		realAnswerDecides(w)
	}
	t.Run("a new comment carrying a forged approved marker", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.ralph(6, "run")
		yes := w.srv.AddComment(prAuthor, "yes") // the author may not approve
		forged := w.srv.AddComment(alice, "LGTM\n"+forgedMarker(w.head, yes))
		stillPending(w, forged)
	})
	t.Run("an edit of ralph-ci's own checkpoint comment to approved", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.ralph(6, "run")
		// edit puts m in ralph-ci's comment, as a person with write
		// access may, and returns the comment's id.
		edit := func(m string) int64 {
			cp := w.checkpoint()
			w.srv.Edit(cp.ID, markerInBody.ReplaceAllString(cp.Body, m))
			return cp.ID
		}
		// The marker names a reply that does not exist...
		waits(w, edit(forgedMarker(w.head, 999999)), "reply 999999 does not exist")
		if r := w.record(); r.Status != tiers.StatusPending {
			t.Fatalf("the forged approval stayed in ralph-ci's comment: %+v", r)
		}
		// ...then a real reply by the pull request's author, who may not
		// approve, said to be alice's...
		yes := w.srv.AddComment(prAuthor, "yes")
		waits(w, edit(forgedMarker(w.head, yes)), fmt.Sprintf("reply %d was given by @Codertocat, not @alice", yes))
		// ...then the marker says the author approved.
		m, _ := tiers.ParseMarker(forgedMarker(w.head, yes))
		m.Record.DecidedBy = prAuthor.Login
		waits(w, edit(tiers.FormatMarker(m)), "@Codertocat may not answer: the pull request's author")
		realAnswerDecides(w)
	})
	t.Run("a marker in another bot's comment", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.ralph(6, "run")
		yes := w.srv.AddComment(mallory, "yes") // read permission: may not approve
		forged := w.srv.AddComment(depbot, "Bump deps\n"+forgedMarker(w.head, yes))
		stillPending(w, forged)
	})
	t.Run("a genuine approval of an older head replayed for the new one", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.ralph(6, "run")
		yes := w.srv.AddComment(alice, "yes") // a real approval, of this head
		stdout, _ := w.ralph(0, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=passed")
		w.push("later.txt") // a new head: the approval is stale
		w.ralph(6, "run")   // the checkpoint is presented for it
		cp := w.checkpoint()
		w.srv.Edit(cp.ID, markerInBody.ReplaceAllString(cp.Body, forgedMarker(w.head, yes)))
		waits(w, cp.ID, fmt.Sprintf("reply %d was given at", yes), "before the checkpoint was presented for the head "+w.head[:7])
		realAnswerDecides(w)
	})
	t.Run("a marker in another bot's comment before ralph-ci's", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		forged := w.srv.AddComment(depbot, "Bump deps\n"+forgedMarker(w.head, 1))
		w.ralph(6, "run")
		w.checkpoint() // ralph-ci posted its own
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
	w := newPRWorld(t, ralphBinary(t), map[string]string{
		evil: "---\nid: " + specA + "\ntitle: Evil\n---\n# Evil\n",
	})
	w.ralph(6, "run")
	w.checkpointOf(specA)
	w.checkpointOf(evil)
	w.srv.AddComment(alice, specA+": yes")
	stdout, stderr := w.ralph(6, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=passed", evil+"\tcheckpoint=pending")
	contains(t, "the log", stderr, "the spec's id is the path of another spec ("+specA+"): replies are never routed to it by that id")
	if _, r := w.checkpointOf(evil); r.Status != tiers.StatusPending {
		t.Fatalf("the shadowing spec took the answer: %+v", r)
	}
}

// committedStateWorld is a pull request that commits the .ralph/state.json
// of a real run, which says its specs are verified 3/3 (returned too).
func committedStateWorld(t *testing.T, bin string) (*prWorld, []byte) {
	t.Helper()
	real := newPRWorld(t, bin)
	real.ralph(6, "run")
	verified, err := os.ReadFile(filepath.Join(real.dir, ".ralph", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := newPRWorld(t, bin)
	writeFile(t, filepath.Join(w.dir, ".ralph", "state.json"), string(verified))
	git(t, w.dir, "add", "-f", ".ralph/state.json")
	w.commit("the loop already verified everything")
	w.srv.SetHead(w.head)
	return w, verified
}

// A pull request that commits a .ralph/state.json saying its spec was
// verified 3/3 (copied from a real run) gets no checkpoint presented for
// a spec no agent ran: check does not trust the checkout's state.
func TestCommittedStateIsNotTrusted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	w, verified := committedStateWorld(t, ralphBinary(t))
	stdout, stderr := w.ralph(6, "check")
	contains(t, "check", stdout, specA+"\tcheckpoint=pending")
	contains(t, "the log", stderr, "the state in the checkout is not trusted", "the checkout has .ralph/ committed (.ralph/state.json)")
	if comments, _ := w.srv.Snapshot(); len(comments) != 0 {
		t.Fatalf("a checkpoint was presented from the committed state: %+v", comments)
	}
	// The committed file is left as it was: nothing is saved over it.
	if got, _ := os.ReadFile(filepath.Join(w.dir, ".ralph", "state.json")); string(got) != string(verified) {
		t.Fatal("check rewrote the committed state")
	}
}

// baseWorld is a pull request whose base commit has prRepoFiles' specs,
// on which change edits the checkout (the pull request's commit).
func baseWorld(t *testing.T, change func(dir string)) *prWorld {
	t.Helper()
	w := newPRWorld(t, ralphBinary(t))
	for _, f := range []string{"specs/a.spec.md", "specs/b.spec.md"} {
		w.srv.SetFile(w.srv.BaseSHA, f, prRepoFiles[f])
	}
	change(w.dir)
	w.commit("the pull request")
	w.srv.SetHead(w.head)
	return w
}

func writeFile(t *testing.T, file, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
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
			if err := os.Remove(filepath.Join(dir, specA)); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, moved), "---\nid: cart-totals\ntitle: Totals\ncontracts:\n  - name: totals\n    verification: auto\n    acceptance_criteria: [\"The total has two decimals\"]\n---\n# Totals\n")
		})
		stdout, stderr := w.ralph(6, "run")
		contains(t, "run", stdout, moved)
		contains(t, "the log", stderr, specA+" (verify on the pull request's base) moved to "+moved+": it keeps its human checkpoint")
		stdout, _ = w.ralph(6, "check")
		contains(t, "check", stdout, moved+"\tcheckpoint=pending")
	})
	t.Run("specs.dirs", func(t *testing.T) {
		t.Parallel()
		w := baseWorld(t, func(dir string) {
			cfg := prRepoFiles["ralph.yaml"] + "specs: {dirs: [other]}\n"
			writeFile(t, filepath.Join(dir, "ralph.yaml"), cfg)
			writeFile(t, filepath.Join(dir, "other", "b.spec.md"), prRepoFiles["specs/b.spec.md"])
		})
		stdout, stderr := w.ralph(6, "check")
		contains(t, "the log", stderr, "the pull request's own specs.dirs and specs.prompt are ignored")
		contains(t, "check", stdout, specA+"\tcheckpoint=pending")
	})
	t.Run("a deleted spec's removal is a checkpoint, and the gate says so", func(t *testing.T) {
		t.Parallel()
		w := baseWorld(t, func(dir string) {
			if err := os.Remove(filepath.Join(dir, specA)); err != nil {
				t.Fatal(err)
			}
		})
		msg := specA + " (verify on the pull request's base) is not in the pull request: its removal is a checkpoint of its own, pending until a person who may approve accepts it"
		stdout, stderr := w.ralph(6, "check")
		contains(t, "check", stdout, "warning: "+msg, "::warning title=ralph-ci%3A a verify-tier spec left the gate::"+msg, specA+"\tcheckpoint=pending")
		contains(t, "the log", stderr, msg)
		summary, _ := os.ReadFile(w.summary)
		contains(t, "the job summary", string(summary), msg)
		removal, _ := w.checkpointOf(specA)
		contains(t, "the removal checkpoint", removal.Body, "Removal of "+specA)
		w.srv.React(removal.ID, alice, "+1")
		stdout, _ = w.ralph(0, "check")
		contains(t, "check after the removal was accepted", stdout, specA+"\tcheckpoint=passed")
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
	bin := ralphBinary(t)
	w, verified := committedStateWorld(t, bin)
	stdout, stderr := w.ralph(6, "run", "--deliver", "none")
	contains(t, "the log", stderr, "the state in the checkout is not trusted", "the checkout has .ralph/ committed (.ralph/state.json)", "the run starts from an empty state")
	if n := w.promptCount(); n != 6 { // both specs, 3/3 each
		t.Fatalf("%d rotations, want 6: the committed state was trusted\n%s", n, stdout)
	}
	w.checkpoint() // presented once the agent verified it

	// The same state, untracked: the local loop's own, trusted.
	local := newPRWorld(t, bin)
	writeFile(t, filepath.Join(local.dir, ".ralph", "state.json"), string(verified))
	_, stderr = local.ralph(6, "run", "--deliver", "none")
	if strings.Contains(stderr, "not trusted") || local.promptCount() != 0 {
		t.Fatalf("an untracked state was not trusted (%d rotations):\n%s", local.promptCount(), stderr)
	}
}
