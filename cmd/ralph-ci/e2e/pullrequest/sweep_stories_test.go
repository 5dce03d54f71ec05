package pullrequest

import (
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

func TestCheckOnSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	for name, story := range map[string]func(*testing.T, string){
		"three pull requests: approved by reaction, pending, rejected by reply; overlapping runs add nothing": sweepThree,
		"more open pull requests than github.max_pull_requests":                                               sweepLimit,
		"a secondary rate limit in the middle of the walk":                                                    sweepRateLimit,
		"a pull request that cannot be read does not stop the others":                                         sweepOneFails,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			story(t, bin)
		})
	}
}

func sweepThree(t *testing.T, bin string) {
	w := newSweepWorld(t, bin, sweepConfig, "schedule", 1, 2, 3)
	// The last scheduled run: every checkpoint waits, no specs in the
	// checkout is no error.
	stdout, _ := w.check(6)
	e2e.Contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=pending", "#2\tspecs/a.spec.md\tcheckpoint=pending", "#3\tspecs/a.spec.md\tcheckpoint=pending")

	// Since then: alice (write) reacted 👍 on #1 and replied "2 ..." on #3;
	// the author's own 👍 on #2 does not count.
	w.srv.React(w.comments[1], e2e.Alice, "+1")
	w.srv.React(w.comments[2], e2e.PRAuthor, "+1")
	w.srv.AddCommentOn(3, e2e.Alice, "2 the total must round half up, not down")

	// Two scheduled runs overlap (a slow one and the next): whichever
	// reads first, the records come out the same and no comment is posted.
	var wg sync.WaitGroup
	outs, codes := make([]string, 2), make([]int, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], outs[i], _ = w.run()
		}()
	}
	wg.Wait()
	if codes[0] != 7 || codes[1] != 7 {
		t.Fatalf("overlapping runs exited %v, want 7 (a rejection) both:\n%s\n%s", codes, outs[0], outs[1])
	}
	e2e.Contains(t, "check", outs[0]+outs[1], "#1\tspecs/a.spec.md\tcheckpoint=passed", "#3\tspecs/a.spec.md\tcheckpoint=rejected")
	for _, out := range outs {
		e2e.Contains(t, "check", out, "#2\tspecs/a.spec.md\tcheckpoint=pending")
	}

	if r, st := w.record(1), w.status(1); r.Status != tiers.StatusApproved || r.DecidedBy != "alice" || r.SHA != w.heads[1] || st.State != "success" {
		t.Fatalf("#1: record %+v, status %+v; want approved by alice for its head, success", r, st)
	}
	if r, st := w.record(2), w.status(2); r.Status != tiers.StatusPending || st.State != "pending" {
		t.Fatalf("#2: record %+v, status %+v; want pending", r, st)
	}
	r := w.record(3)
	if r.Status != tiers.StatusRework || r.RejectionCount != 1 || len(r.RejectionLog) != 1 || r.Route != tiers.ContractGap ||
		r.RejectionLog[0].Feedback != "the total must round half up, not down" {
		t.Fatalf("#3: record %+v; want back to work (contract_gap), one rejection with the feedback", r)
	}
	if st := w.status(3); st.State != "pending" || !strings.Contains(st.Description, "rejected (1/3): back to work") {
		t.Fatalf("#3: status %+v", st)
	}
	// The one merge-gate status follows: #1 may merge, #2 waits, #3 was
	// rejected.
	for n, want := range map[int]string{1: "success", 2: "pending", 3: "failure"} {
		if st := w.gate(n); st.State != want {
			t.Errorf("#%d: ralph-ci %s %q, want %s", n, st.State, st.Description, want)
		}
	}
	comments, _ := w.srv.Snapshot()
	if len(comments) != 4 { // three checkpoints, one reply
		t.Fatalf("%d comments, want the 3 checkpoints and the reply: %+v", len(comments), comments)
	}
	summary, err := os.ReadFile(w.summary)
	if err != nil {
		t.Fatal(err)
	}
	e2e.Contains(t, "the job summary", string(summary), "| #1 | specs/a.spec.md | ✅ passed |", "| #2 | specs/a.spec.md | 👀 pending |",
		"| #3 | specs/a.spec.md | ↩️ rejected, back to work |", "**rejected** (exit 7)")

	// The next run: #1 is approved (its status says so, nothing to read),
	// nothing changed on #2 and #3: no write at all.
	before, reads := w.writes(), w.srv.Seen("GET", "/issues/1/comments")
	stdout, _ = w.check(7)
	e2e.Contains(t, "check", stdout, "#1\tapproved", "#2\tspecs/a.spec.md\tcheckpoint=pending", "#3\tspecs/a.spec.md\tcheckpoint=rejected")
	if n := w.writes(); n != before {
		t.Fatalf("a run with nothing new made %d writes", n-before)
	}
	if w.srv.Seen("GET", "/issues/1/comments") != reads {
		t.Fatal("#1 was read again after its approval")
	}
}

func sweepLimit(t *testing.T, bin string) {
	w := newSweepWorld(t, bin, sweepConfig+"github: {max_pull_requests: 2}\n", "workflow_dispatch", 2, 5, 7, 9)
	w.srv.React(w.comments[7], e2e.Alice, "+1")
	w.runNumber = 1
	stdout, stderr := w.check(6)
	e2e.Contains(t, "run 1", stdout, "#2\tspecs/a.spec.md\tcheckpoint=pending", "#5\tspecs/a.spec.md\tcheckpoint=pending", "#7\tleft", "#9\tleft")
	e2e.Contains(t, "run 1's log", stderr, "github.max_pull_requests reached", `"left":[7,9]`)
	for _, n := range []string{"7", "9"} {
		if w.srv.Seen("GET", "/pulls/"+n+"$")+w.srv.Seen("GET", "/issues/"+n+"/comments") != 0 {
			t.Fatalf("run 1 read #%s, beyond the limit", n)
		}
	}
	if st := w.status(7); st.State != "pending" {
		t.Fatalf("#7 decided before its turn: %+v", st)
	}
	summary, _ := os.ReadFile(w.summary)
	e2e.Contains(t, "the job summary", string(summary), "Left for the next run, because of the limit of pull requests per run (`github.max_pull_requests`): #7, #9")

	// The next run starts where this one stopped.
	w.runNumber = 2
	stdout, _ = w.check(6)
	e2e.Contains(t, "run 2", stdout, "#7\tspecs/a.spec.md\tcheckpoint=passed", "#9\tspecs/a.spec.md\tcheckpoint=pending", "#2\tleft", "#5\tleft")
	if st := w.status(7); st.State != "success" {
		t.Fatalf("#7 after its turn: %+v", st)
	}
}

func sweepRateLimit(t *testing.T, bin string) {
	w := newSweepWorld(t, bin, sweepConfig, "schedule", 1, 2, 3)
	w.srv.React(w.comments[1], e2e.Alice, "+1")
	w.srv.React(w.comments[3], e2e.Alice, "+1")
	// GitHub's secondary rate limit, as it answers it: 403, a message
	// saying so and a Retry-After too long to wait for in this run.
	w.srv.Inject(fake.Fault{Method: "GET", Path: `/issues/2/comments$`, Code: http.StatusForbidden, Count: 1, RetryAfter: "3600",
		Message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})
	stdout, stderr := w.check(3)
	e2e.Contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=passed", "#2\tleft", "#3\tleft")
	e2e.Contains(t, "check's log", stderr, "rate limit stopped the walk", `"left":[2,3]`)
	if st := w.status(1); st.State != "success" {
		t.Fatalf("#1, read before the limit: %+v", st)
	}
	if n := w.srv.Seen("GET", "/issues/2/comments") + w.srv.Seen("GET", "/pulls/3$") + w.srv.Seen("GET", "/commits/"+w.heads[3]+"/status"); n != 1 {
		t.Fatalf("after the rate limit the walk went on: %d more requests", n-1)
	}
	if st := w.status(3); st.State != "pending" {
		t.Fatalf("#3 was decided after the rate limit: %+v", st)
	}
	summary, _ := os.ReadFile(w.summary)
	e2e.Contains(t, "the job summary", string(summary), "**limits** (exit 3)", "Left for the next run, because of the GitHub API's rate limit", "#2, #3")

	// The next run, the limit lifted, reads what was left.
	stdout, _ = w.check(6)
	e2e.Contains(t, "the next run", stdout, "#1\tapproved", "#2\tspecs/a.spec.md\tcheckpoint=pending", "#3\tspecs/a.spec.md\tcheckpoint=passed")
}

func sweepOneFails(t *testing.T, bin string) {
	w := newSweepWorld(t, bin, sweepConfig, "schedule", 1, 2, 3)
	w.srv.React(w.comments[1], e2e.Alice, "+1")
	w.srv.React(w.comments[3], e2e.Alice, "+1")
	w.srv.SetFile(w.heads[2], sweepSpecPath, "---\ncontracts: [{verification: sometimes}]\n---\n")
	stdout, stderr := w.check(1)
	e2e.Contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=passed", "#2\terror=specs/a.spec.md at "+w.heads[2], "#3\tspecs/a.spec.md\tcheckpoint=passed")
	e2e.Contains(t, "check's log", stderr, "the checkpoints of 1 pull request(s) could not be read")
	if w.status(1).State != "success" || w.status(3).State != "success" || w.status(2).State != "pending" {
		t.Fatalf("statuses %+v %+v %+v", w.status(1), w.status(2), w.status(3))
	}
	summary, _ := os.ReadFile(w.summary)
	e2e.Contains(t, "the job summary", string(summary), "**failure** (exit 1)", "| #2 | | ❌ could not be read: specs/a.spec.md at "+w.heads[2])
}
