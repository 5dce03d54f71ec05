package pullrequest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// The rejection count is ralph-ci's to keep: an edit of its comment (or
// its deletion) cannot lower it, because every record the gate publishes
// is also a commit status that only ralph-ci's login can write and nobody
// can edit (the ledger). Through the binary and the fake GitHub.

// rejectTwice has SpecA presented and genuinely rejected twice (once read
// by check, once by run), and leaves it presented again: pending, 2/3.
func rejectTwice(t *testing.T, w *e2e.PRWorld) {
	t.Helper()
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
	w.Ralph(7, "check")
	w.Ralph(6, "run")
	w.Srv.AddComment(e2e.Alice, "2 the contract must say cents")
	w.Ralph(6, "run")
	if r := w.Record(); r.RejectionCount != 2 || r.Status != tiers.StatusPending {
		t.Fatalf("after two rejections: %+v", r)
	}
	if st := w.Status(); st.Description != "awaiting the human checkpoint (rejected 2/3 so far)" || st.TargetURL != "https://github.com/Codertocat/Hello-World/pull/2" {
		t.Fatalf("the commit status does not carry the count: %+v", st)
	}
}

// editRecord rewrites the record in ralph-ci's comment, as anyone with
// write access may, and returns the comment's id.
func editRecord(w *e2e.PRWorld, change func(*tiers.Record)) int64 {
	cp := w.Checkpoint()
	m, err := tiers.ParseMarker(cp.Body)
	if err != nil {
		w.T.Fatal(err)
	}
	change(&m.Record)
	w.Srv.Edit(cp.ID, markerInBody.ReplaceAllString(cp.Body, tiers.FormatMarker(m)))
	return cp.ID
}

// reset is the forger's edit: no rejection so far, pending.
func reset(r *tiers.Record) {
	r.Status, r.RejectionCount, r.RejectionLog = tiers.StatusPending, 0, []tiers.Rejection{}
}

func TestMarkerEditCannotLowerTheRejectionCount(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	t.Run("count reset to 0, then a third genuine rejection escalates", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		forged := editRecord(w, reset)
		w.Srv.AddComment(e2e.Alice, "still 3 decimals")
		stdout, stderr := w.Ralph(8, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=escalated")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf("forged checkpoint marker in comment %d: it lowers the rejection count from 2 to 0", forged),
			`ralph-ci's own commit status`, `says \"awaiting the human checkpoint (rejected 2/3 so far)\"`)
		w.WantStatus("failure")
		if r := w.Record(); r.RejectionCount != 3 || r.Status != tiers.StatusEscalated {
			t.Fatalf("after the third rejection: %+v", r)
		}
		e2e.Contains(t, "the escalation comment", w.Checkpoint().Body, "ESCALATION -- Totals", "This slice has been rejected 3 times.",
			// The forged marker's empty log is replaced by the state's.
			`1. Feedback: "the total shows 3 decimals"`, `3. Feedback: "still 3 decimals"`)
	})
	t.Run("count reset to 0, no further rejection: the count is restored", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		forged := editRecord(w, reset)
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf("forged checkpoint marker in comment %d: it lowers the rejection count from 2 to 0", forged))
		if r := w.Record(); r.RejectionCount != 2 || r.Status != tiers.StatusPending {
			t.Fatalf("the count was not restored in the comment: %+v", r)
		}
		w.WantStatus("pending")
		// Published again: the next check finds nothing to restore.
		_, stderr = w.Ralph(6, "check")
		if strings.Contains(stderr, "forged") {
			t.Fatalf("the restored record was not published:\n%s", stderr)
		}
	})
	t.Run("an escalation dropped from the marker comes back", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		w.Srv.React(w.Checkpoint().ID, e2e.Alice, "-1")
		w.Ralph(8, "check")
		forged := editRecord(w, func(r *tiers.Record) { r.Status = tiers.StatusPending })
		stdout, stderr := w.Ralph(8, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=escalated")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf("forged checkpoint marker in comment %d: it drops the escalation after 3 rejections", forged))
		w.WantStatus("failure")
		forged = editRecord(w, reset)
		_, stderr = w.Ralph(8, "check")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf("forged checkpoint marker in comment %d: it lowers the rejection count from 3 to 0", forged))
		if r := w.Record(); r.RejectionCount != 3 || r.Status != tiers.StatusEscalated {
			t.Fatalf("record %+v", r)
		}
	})
	t.Run("a genuine escalation answer still resets the count", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		w.Srv.React(w.Checkpoint().ID, e2e.Alice, "-1")
		var logs strings.Builder
		_, stderr := w.Ralph(8, "check")
		logs.WriteString(stderr)
		w.Srv.AddComment(e2e.Alice, "1")
		_, stderr = w.Ralph(7, "check")
		logs.WriteString(stderr)
		if st := w.Status(); st.Description != "rejected (0/3): back to work" {
			t.Fatalf("the reset is not recorded: %+v", st)
		}
		_, stderr = w.Ralph(6, "run")
		logs.WriteString(stderr)
		if r := w.Record(); r.RejectionCount != 0 || r.Status != tiers.StatusPending {
			t.Fatalf("after the reset: %+v", r)
		}
		w.Srv.AddComment(e2e.Alice, "still 3 decimals")
		_, stderr = w.Ralph(7, "check")
		logs.WriteString(stderr)
		if r := w.Record(); r.RejectionCount != 1 || r.Status != tiers.StatusRework {
			t.Fatalf("the next rejection is not 1/3: %+v", r)
		}
		if strings.Contains(logs.String(), "forged") {
			t.Fatalf("a genuine reset was taken for a forgery:\n%s", logs.String())
		}
	})
	t.Run("the comment deleted and the state gone: the count comes back", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		rejectTwice(t, w)
		w.Srv.Delete(w.Checkpoint().ID)
		if err := os.RemoveAll(filepath.Join(w.Dir, ".ralph")); err != nil { // a new workflow run
			t.Fatal(err)
		}
		_, stderr := w.Ralph(6, "run")
		e2e.Contains(t, "the log", stderr, "no checkpoint comment, and the record from the state (if any): it lowers the rejection count from 2 to 0")
		if r := w.Record(); r.RejectionCount != 2 || r.Status != tiers.StatusPending {
			t.Fatalf("the checkpoint posted again forgot the rejections: %+v", r)
		}
	})
}

// A reply is its author's only as long as nobody edited it: anyone with
// write access may edit anyone's comment, and GitHub's REST API does not
// say who did. An edited reply is no answer, when it is read and when an
// approval resting on it is confirmed.
func TestEditedReplyIsNoAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	t.Run("edited before it was read", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Ralph(6, "run")
		no := w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
		w.Srv.Edit(no, "yes")
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf(`"id":%d`, no), "the reply was edited after it was given", "answer again in a new reply")
		w.WantStatus("pending")
	})
	t.Run("edited after the approval it gave", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Ralph(6, "run")
		yes := w.Srv.AddComment(e2e.Alice, "yes")
		w.Ralph(0, "check")
		w.Srv.Edit(yes, "yes!")
		stdout, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=pending")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf("forged checkpoint marker in comment %d", w.Checkpoint().ID),
			fmt.Sprintf("reply %d: the reply was edited after it was given", yes))
		w.WantStatus("pending")
		w.Srv.AddComment(e2e.Alice, "yes")
		w.Ralph(0, "check")
		w.WantStatus("success")
	})
}

// A GitHub App's installation token writes as the app ("my-app[bot]") and,
// like a job's GITHUB_TOKEN, may not read /user: the workflow names the
// login (the Action's github-login input, RALPH_CI_GITHUB_LOGIN), so a
// later job takes the app's earlier checkpoint comment and statuses for
// ralph-ci's own. Without it they are another bot's: a forgery.
func TestAppTokenAcrossJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	appComments := func(w *e2e.PRWorld) (ids []int64) {
		comments, _ := w.Srv.Snapshot()
		for _, c := range comments {
			if c.User == fake.App && tiers.HasMarker(c.Body) { // not the progress comment
				ids = append(ids, c.ID)
			}
		}
		return ids
	}
	newJob := func(w *e2e.PRWorld) { // a new workflow run: a fresh checkout, no .ralph/
		if err := os.RemoveAll(filepath.Join(w.Dir, ".ralph")); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("the login named", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Srv.Self = fake.App
		w.ExtraEnv = []string{"RALPH_CI_GITHUB_LOGIN=my-app[bot]"}
		w.Ralph(6, "run")
		first := appComments(w)
		if len(first) != 1 {
			t.Fatalf("want one checkpoint comment by the app, got %v", first)
		}
		w.Srv.AddComment(e2e.Alice, "the total shows 3 decimals")
		newJob(w)
		w.Ralph(7, "check")
		newJob(w)
		w.Ralph(6, "run")
		w.Srv.AddComment(e2e.Alice, "yes")
		newJob(w)
		stdout, stderr := w.Ralph(0, "check")
		e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed")
		if strings.Contains(stderr, "forged") {
			t.Fatalf("the app's own comment was taken for a forgery:\n%s", stderr)
		}
		if ids := appComments(w); len(ids) != 1 || ids[0] != first[0] {
			t.Fatalf("the checkpoint moved or was duplicated: %v", ids)
		}
		st := w.Status()
		if st.Creator != fake.App || st.State != "success" || st.Description != "approved by @alice (rejected 1/3 before)" {
			t.Fatalf("status %+v", st)
		}
		if w.Srv.Seen("GET", "^/user$") != 0 {
			t.Error("/user was asked although the login was named")
		}
	})
	t.Run("the login not named", func(t *testing.T) {
		t.Parallel()
		w := newPRWorld(t, bin)
		w.Srv.Self = fake.App
		w.Ralph(6, "run")
		first := appComments(w)
		newJob(w)
		_, stderr := w.Ralph(6, "check")
		e2e.Contains(t, "the log", stderr, fmt.Sprintf("forged checkpoint marker in comment %d by @my-app[bot]", first[0]))
	})
}
