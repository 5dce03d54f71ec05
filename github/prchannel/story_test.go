package prchannel_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	"github.com/ralph-ci/ralph-ci/internal/ghevent"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/discovery"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/schema"
)

const sha1, sha2 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"

var (
	alice = fake.User{Login: "alice", ID: 10, Type: "User"}   // write
	mallo = fake.User{Login: "mallory", ID: 11, Type: "User"} // read only
	dep   = fake.User{Login: "dependabot[bot]", ID: 12, Type: "Bot"}
	carol = fake.User{Login: "carol", ID: 13, Type: "User"}      // approver, no permission
	coder = fake.User{Login: "Codertocat", ID: 14, Type: "User"} // the PR author, admin
)

type world struct {
	t     *testing.T
	srv   *fake.Server
	specs []plan.Spec
	st    state.State
	logs  *bytes.Buffer
	out   *bytes.Buffer
	env   actions.Env
	// options, when set, changes the client's options (trusted config
	// carol is an approver of, by default).
	options func(*prchannel.Options)
}

func newWorld(t *testing.T) *world {
	srv := fake.New(t, "Codertocat", "Hello-World", 2, sha1, "Codertocat")
	srv.Perms["alice"], srv.Perms["mallory"], srv.Perms["Codertocat"] = "write", "read", "admin"
	sp := plan.Spec{Spec: discovery.Spec{Path: "specs/a.spec.md", Hash: "h1"}, Title: "Totals", ID: "a", Tier: plan.TierVerify,
		AcceptanceCriteria: []string{"The total has two decimals"}, Steps: []string{"open /cart"}, Stages: []plan.Stage{{Name: "coder"}, {Name: "tester"}}}
	w := &world{t: t, srv: srv, specs: []plan.Spec{sp}, logs: &bytes.Buffer{}, out: &bytes.Buffer{}}
	w.env = actions.Env{Actions: true, StepSummary: filepath.Join(t.TempDir(), "summary.md")}
	w.verify()
	return w
}

// verify marks the spec verified 3/3, as a run would.
func (w *world) verify() {
	ss := w.st.Spec("specs/a.spec.md")
	if ss == nil {
		w.st.Specs = append(w.st.Specs, state.SpecState{Path: "specs/a.spec.md"})
		ss = w.st.Spec("specs/a.spec.md")
	}
	ss.DoneCount, ss.StagesDone, ss.LastHash, ss.Stage = 3, true, "h1", "tester"
}

func (w *world) sync() gate.Result {
	w.t.Helper()
	event, err := filepath.Abs("testdata/events/pull_request.opened.json")
	if err != nil {
		w.t.Fatal(err)
	}
	ev, err := ghevent.Read("pull_request", event)
	if err != nil || ev.PR != 2 {
		w.t.Fatalf("pull request from the event: %d %v", ev.PR, err)
	}
	o := prchannel.Options{PR: ev.PR, Log: zerolog.New(w.logs),
		Config: schema.GitHub{RequiredPermission: "write", IgnorePRAuthor: true, Approvers: []string{"carol"}}, TrustConfig: true,
		Actions: w.env, Stdout: w.out}
	if w.options != nil {
		w.options(&o)
	}
	repo := prchannel.RepoForTest(w.t, github.Config{APIURL: w.srv.URL, Token: "test-token", Retry: github.Retry{Attempts: 4, Base: time.Millisecond, Max: time.Second}}, "Codertocat/Hello-World")
	c := prchannel.New(repo, o)
	res, err := gate.Sync(context.Background(), c, w.specs, &w.st, zerolog.New(w.logs))
	if err != nil {
		w.t.Fatal(err)
	}
	return res
}

func (w *world) checkpoint() fake.Comment {
	w.t.Helper()
	comments, _ := w.srv.Snapshot()
	var found []fake.Comment
	for _, c := range comments {
		if c.User == fake.Bot {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		w.t.Fatalf("want exactly one checkpoint comment, got %d", len(found))
	}
	return found[0]
}

func (w *world) lastStatus() fake.Status {
	_, sts := w.srv.Snapshot()
	if len(sts) == 0 {
		w.t.Fatal("no commit status")
	}
	return sts[len(sts)-1]
}

// TestApproveByReaction: the checkpoint is posted once, answers of people
// without permission, bots and the PR author are ignored (and logged), a
// writer's +1 approves; a push makes the approval stale.
func TestApproveByReaction(t *testing.T) {
	w := newWorld(t)
	res := w.sync()
	if len(res.Pending) != 1 {
		t.Fatalf("got %+v", res)
	}
	cp := w.checkpoint()
	if !strings.Contains(cp.Body, tiers.CheckpointText(gate.SliceOf(w.specs[0]))) {
		t.Fatalf("the comment lacks the exact text:\n%s", cp.Body)
	}
	if st := w.lastStatus(); st.State != "pending" || st.Context != "ralph-ci/specs/a.spec.md" || st.SHA != sha1 {
		t.Fatalf("status %+v", st)
	}
	w.sync() // a re-run: no duplicate
	w.checkpoint()
	w.srv.React(cp.ID, mallo, "+1")
	w.srv.React(cp.ID, dep, "+1")
	w.srv.React(cp.ID, coder, "+1")
	w.srv.React(cp.ID, alice, "heart")
	if res := w.sync(); len(res.Pending) != 1 {
		t.Fatalf("an unauthorized answer counted: %+v", res)
	}
	for _, why := range []string{"below github.required_permission", "a bot", "the pull request's author", "is not an answer"} {
		if !strings.Contains(w.logs.String(), why) {
			t.Errorf("no log of an answer ignored because %q:\n%s", why, w.logs)
		}
	}
	w.srv.React(cp.ID, alice, "+1")
	if res := w.sync(); len(res.Passed) != 1 {
		t.Fatalf("not approved: %+v\n%s", res, w.logs)
	}
	if st := w.lastStatus(); st.State != "success" {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(w.checkpoint().Body, "Approved by @alice") {
		t.Fatal("the comment does not say it is approved")
	}
	w.srv.SetHead(sha2) // a push
	if res := w.sync(); len(res.Passed) != 0 {
		t.Fatal("an approval for an older head commit still passes")
	}
	w.verify()
	if res := w.sync(); len(res.Pending) != 1 || w.st.Spec("specs/a.spec.md").Checkpoint.SHA != sha2 {
		t.Fatalf("not presented again for the new head: %+v", res)
	}
	// alice's 👍 stays on the comment and GitHub keeps one per person: the
	// comment says how to approve the new commit, and that way works.
	if body := w.checkpoint().Body; !strings.Contains(body, "**After a new push** an earlier answer is stale and the checkpoint asks again for the new commit: reply `1` to approve it.") {
		t.Fatalf("the comment does not say how to approve after a push:\n%s", body)
	}
	w.srv.AddComment(alice, "1")
	if res := w.sync(); len(res.Passed) != 1 || w.st.Spec("specs/a.spec.md").Checkpoint.SHA != sha2 {
		t.Fatalf("a reply after the push did not approve the new head: %+v\n%s", res, w.logs)
	}
}

// TestRejectEscalateAndChoose: three rejections by reply escalate; an
// invalid choice is re-prompted; each option does what it says.
func TestRejectEscalateAndChoose(t *testing.T) {
	for _, tt := range []struct {
		choice string
		want   tiers.Status
		count  int
	}{{"1", tiers.StatusRework, 0}, {"2 start with the rounding", tiers.StatusRework, 0}, {"3", tiers.StatusSkipped, 3}} {
		t.Run(tt.choice, func(t *testing.T) {
			w := newWorld(t)
			w.sync()
			for i, text := range []string{"the total shows 3 decimals", "2 the contract must say cents", "3 round half up"} {
				w.srv.AddComment(alice, text)
				res := w.sync()
				rec := w.st.Spec("specs/a.spec.md").Checkpoint
				if rec.RejectionCount != i+1 {
					t.Fatalf("rejection %d: %+v", i+1, rec)
				}
				if i < 2 {
					if len(res.SentBack) != 1 || w.st.Spec("specs/a.spec.md").DoneCount != 0 {
						t.Fatalf("not sent back to work: %+v", res)
					}
					w.verify()
					w.sync()
				}
			}
			if st := w.lastStatus(); st.State != "failure" {
				t.Fatalf("status %+v", st)
			}
			if !strings.Contains(w.checkpoint().Body, "ESCALATION -- Totals") {
				t.Fatal("no escalation")
			}
			w.srv.AddComment(alice, "hmm")
			w.sync()
			if !strings.Contains(w.checkpoint().Body, "Please choose 1, 2, or 3.") {
				t.Fatal("no re-prompt")
			}
			w.srv.AddComment(alice, tt.choice)
			res := w.sync()
			rec := w.st.Spec("specs/a.spec.md").Checkpoint
			if rec.Status != tt.want || rec.RejectionCount != tt.count {
				t.Fatalf("option %s: %+v", tt.choice, rec)
			}
			if tt.want == tiers.StatusSkipped && (len(res.Passed) != 1 || !strings.Contains(w.checkpoint().Body, tiers.SkipEntry)) {
				t.Fatalf("skip: %+v", res)
			}
		})
	}
}

// TestRetriesAndPagination: 429 and 5xx are retried; many comments are
// read page by page.
func TestRetriesAndPagination(t *testing.T) {
	w := newWorld(t)
	for range 5 {
		w.srv.AddComment(mallo, "chatter")
	}
	w.srv.Inject(fake.Fault{Method: "GET", Path: `/pulls/`, Code: 429, Count: 1})
	w.srv.Inject(fake.Fault{Method: "GET", Path: `/comments$`, Code: 502, Count: 2})
	w.srv.Inject(fake.Fault{Method: "POST", Path: `/statuses/`, Code: 500, Count: 1})
	if res := w.sync(); len(res.Pending) != 1 {
		t.Fatalf("got %+v", res)
	}
	w.checkpoint()
	w.srv.AddComment(alice, "yes")
	if res := w.sync(); len(res.Passed) != 1 {
		t.Fatalf("the approval behind several pages was missed: %+v", res)
	}
}

// TestNoPermissionFallback: a read-only token shows the checkpoint in an
// annotation and the job summary, with a clear message.
func TestNoPermissionFallback(t *testing.T) {
	w := newWorld(t)
	w.srv.SetReadOnly(true)
	w.sync()
	if !strings.Contains(w.logs.String(), "may not write") {
		t.Errorf("no clear message:\n%s", w.logs)
	}
	if !strings.Contains(w.out.String(), "::warning file=specs/a.spec.md") {
		t.Errorf("no annotation:\n%s", w.out)
	}
	sum, _ := os.ReadFile(w.env.StepSummary)
	if !strings.Contains(string(sum), "ALL TESTS PASSING -- Slice a: Totals") {
		t.Errorf("no summary:\n%s", sum)
	}
}

// TestMergeGroupOf: a merge queue's group names its pull request in its
// branch; another event has no group. (Where the pull request of an event
// is found: pipeline/job's TestSessionReadsTheEventOnce.)
func TestMergeGroupOf(t *testing.T) {
	path := filepath.Join("testdata/events", "merge_group.checks_requested.json")
	ev, err := ghevent.Read("merge_group", path)
	if err != nil {
		t.Fatal(err)
	}
	mg, ok, err := prchannel.MergeGroupOf(ev, path)
	if err != nil || !ok || mg.PR != 104 || mg.HeadSHA != "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" || mg.BaseSHA != "380387fbc80638b734a49e1be1c4dfec1c01b33c" {
		t.Errorf("merge_group: %+v %v %v", mg, ok, err)
	}
	push := filepath.Join("testdata/events", "push.json")
	if ev, err = ghevent.Read("push", push); err != nil {
		t.Fatal(err)
	}
	if mg, ok, err := prchannel.MergeGroupOf(ev, push); ok || err != nil {
		t.Errorf("push: a merge group %+v %v", mg, err)
	}
}
