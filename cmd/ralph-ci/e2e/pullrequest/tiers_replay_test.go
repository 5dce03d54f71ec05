package pullrequest

import (
	"fmt"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The marker's read cursor (after_comment, after_reaction) is a cache too:
// anyone with write access may lower it in ralph-ci's comment, so that an
// answer passed over earlier (given while the checkpoint was back at work)
// is read again as new. Answers are read against ralph-ci's own commit
// statuses instead: one counts only when the newest status set before it
// was given shows the state it answers. Through the binary and the fake
// GitHub.

// rejectedThenPresented has SpecA presented, rejected once by alice (read
// by check), and presented again by run: pending, 1/3. between runs while
// the spec is back at work, before it is presented again.
func rejectedThenPresented(t *testing.T, w *e2e.PRWorld, between func()) {
	t.Helper()
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
	w.Ralph(7, "check")
	between()
	w.Ralph(6, "run")
	if r := w.Record(); r.Status != tiers.StatusPending || r.RejectionCount != 1 {
		t.Fatalf("not presented again after the rejection: %+v", r)
	}
}

func TestRewoundCursorReplaysNoAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	t.Run("after_comment rewound below a yes given while at work", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		var yes int64
		rejectedThenPresented(t, w, func() {
			yes = w.Srv.AddComment(e2e.Carol, "yes") // the checkpoint is back at work
			stdout, _ := w.Ralph(7, "check")
			e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=rejected")
		})
		if r := w.Record(); r.AfterComment < yes {
			t.Fatalf("the cursor is not past carol's yes: %+v", r)
		}
		editRecord(w, func(r *tiers.Record) { r.AfterComment, r.Status = yes-1, tiers.StatusPending })
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf(`"id":%d`, yes), "while the checkpoint was back at work",
			`says \"rejected (1/3): back to work\"`)
		w.WantStatus("pending")
		if r := w.Record(); r.Status != tiers.StatusPending || r.DecidedID != 0 {
			t.Fatalf("the replayed yes decided: %+v", r)
		}
		// A genuine approval after the re-presentation passes.
		again := w.Srv.AddComment(e2e.Carol, "yes")
		stdout, _ = w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		w.WantStatus("success")
		if r := w.Record(); r.DecidedID != again || r.DecidedBy != "carol" {
			t.Fatalf("approved by %+v, want carol's new reply %d", r, again)
		}
	})
	t.Run("a thumbs-up given while at work, read after the re-presentation and after a rewind", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectedThenPresented(t, w, func() {
			w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1") // the checkpoint is back at work
		})
		// Reactions are not read while the checkpoint is at work: the
		// cursor never passed it, so it is read now, and does not count.
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, `"kind":"reaction"`, "while the checkpoint was back at work")
		w.WantStatus("pending")
		editRecord(w, func(r *tiers.Record) { r.AfterReaction = 0 })
		stdout, stderr = w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, `"kind":"reaction"`, "while the checkpoint was back at work")
		w.WantStatus("pending")
		// A genuine thumbs-up now passes.
		w.Srv.React(w.Checkpoint().ID, e2e.Carol, "+1")
		w.Ralph(0, "check")
		w.WantStatus("success")
	})
	t.Run("an escalation answer 1 is not replayed as an approval", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		w.Srv.React(w.Checkpoint().ID, e2e.Alice, "-1")
		w.Ralph(8, "check")
		one := w.Srv.AddComment(e2e.Alice, "1")
		w.Ralph(7, "check")
		w.Ralph(6, "run")
		if r := w.Record(); r.Status != tiers.StatusPending || r.RejectionCount != 0 {
			t.Fatalf("not presented again after the reset: %+v", r)
		}
		editRecord(w, func(r *tiers.Record) { r.AfterComment = one - 1 })
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf(`"id":%d`, one), "while the checkpoint was escalated")
		w.WantStatus("pending")
	})
}
