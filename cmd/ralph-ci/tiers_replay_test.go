package main

import (
	"fmt"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The marker's read cursor (after_comment, after_reaction) is a cache too:
// anyone with write access may lower it in ralph-ci's comment, so that an
// answer passed over earlier (given while the checkpoint was back at work)
// is read again as new. Answers are read against ralph-ci's own commit
// statuses instead: one counts only when the newest status set before it
// was given shows the state it answers. Through the binary and the fake
// GitHub.

// rejectedThenPresented has specA presented, rejected once by alice (read
// by check), and presented again by run: pending, 1/3. between runs while
// the spec is back at work, before it is presented again.
func rejectedThenPresented(t *testing.T, w *prWorld, between func()) {
	t.Helper()
	w.ralph(6, "run")
	w.srv.AddComment(alice, "the total shows 3 decimals")
	w.ralph(7, "check")
	between()
	w.ralph(6, "run")
	if r := w.record(); r.Status != tiers.StatusPending || r.RejectionCount != 1 {
		t.Fatalf("not presented again after the rejection: %+v", r)
	}
}

func TestRewoundCursorReplaysNoAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := ralphBinary(t)
	t.Run("after_comment rewound below a yes given while at work", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		var yes int64
		rejectedThenPresented(t, w, func() {
			yes = w.srv.AddComment(carol, "yes") // the checkpoint is back at work
			stdout, _ := w.ralph(7, "check")
			contains(t, "check", stdout, specA+"\tcheckpoint=rejected")
		})
		if r := w.record(); r.AfterComment < yes {
			t.Fatalf("the cursor is not past carol's yes: %+v", r)
		}
		editRecord(w, func(r *tiers.Record) { r.AfterComment, r.Status = yes-1, tiers.StatusPending })
		stdout, stderr := w.ralph(6, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=pending")
		contains(t, "the log", stderr, fmt.Sprintf(`"id":%d`, yes), "while the checkpoint was back at work",
			`says \"rejected (1/3): back to work\"`)
		w.wantStatus("pending")
		if r := w.record(); r.Status != tiers.StatusPending || r.DecidedID != 0 {
			t.Fatalf("the replayed yes decided: %+v", r)
		}
		// A genuine approval after the re-presentation passes.
		again := w.srv.AddComment(carol, "yes")
		stdout, _ = w.ralph(0, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=passed")
		w.wantStatus("success")
		if r := w.record(); r.DecidedID != again || r.DecidedBy != "carol" {
			t.Fatalf("approved by %+v, want carol's new reply %d", r, again)
		}
	})
	t.Run("a thumbs-up given while at work, read after the re-presentation and after a rewind", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectedThenPresented(t, w, func() {
			w.srv.React(w.checkpoint().ID, alice, "+1") // the checkpoint is back at work
		})
		// Reactions are not read while the checkpoint is at work: the
		// cursor never passed it, so it is read now, and does not count.
		stdout, stderr := w.ralph(6, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=pending")
		contains(t, "the log", stderr, `"kind":"reaction"`, "while the checkpoint was back at work")
		w.wantStatus("pending")
		editRecord(w, func(r *tiers.Record) { r.AfterReaction = 0 })
		stdout, stderr = w.ralph(6, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=pending")
		contains(t, "the log", stderr, `"kind":"reaction"`, "while the checkpoint was back at work")
		w.wantStatus("pending")
		// A genuine thumbs-up now passes.
		w.srv.React(w.checkpoint().ID, carol, "+1")
		w.ralph(0, "check")
		w.wantStatus("success")
	})
	t.Run("an escalation answer 1 is not replayed as an approval", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		w.srv.React(w.checkpoint().ID, alice, "-1")
		w.ralph(8, "check")
		one := w.srv.AddComment(alice, "1")
		w.ralph(7, "check")
		w.ralph(6, "run")
		if r := w.record(); r.Status != tiers.StatusPending || r.RejectionCount != 0 {
			t.Fatalf("not presented again after the reset: %+v", r)
		}
		editRecord(w, func(r *tiers.Record) { r.AfterComment = one - 1 })
		stdout, stderr := w.ralph(6, "check")
		contains(t, "check", stdout, specA+"\tcheckpoint=pending")
		contains(t, "the log", stderr, fmt.Sprintf(`"id":%d`, one), "while the checkpoint was escalated")
		w.wantStatus("pending")
	})
}
