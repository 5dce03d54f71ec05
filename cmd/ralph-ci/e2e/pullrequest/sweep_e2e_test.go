package pullrequest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// check on a schedule, end to end through the built binary: the checkout
// is the default branch (a config, no specs), the event is a scheduled
// run's payload, and the fake GitHub serves several open pull requests,
// each with a verify-tier checkpoint presented by an earlier run (its
// comment with the marker, a pending ralph-ci/<spec> status on its head)
// and the spec at its head only.

const sweepSpecPath = "specs/a.spec.md"

const sweepConfig = `agents:
  coder: {command: [sh, agent.sh], timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
`

type sweepWorld struct {
	t              *testing.T
	bin, dir       string
	srv            *fake.Server
	event, summary string
	eventName      string // schedule or workflow_dispatch
	heads          map[int]string
	comments       map[int]int64 // the checkpoint comment of each pull request
	runNumber      int
}

// newSweepWorld makes the default branch's checkout with config (also the
// pull requests' base config) and the open pull requests prs, each with
// its checkpoint presented, and the job's event (schedule or
// workflow_dispatch, its payload from github/prchannel/testdata/events).
func newSweepWorld(t *testing.T, bin, config, event string, prs ...int) *sweepWorld {
	t.Helper()
	w := &sweepWorld{t: t, bin: bin, dir: t.TempDir(), eventName: event, heads: map[int]string{}, comments: map[int]int64{}}
	for name, content := range map[string]string{"ralph.yaml": config, "agent.sh": "echo RALPH_STATUS: DONE\n"} {
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e2e.Git(t, w.dir, "init", "-q")
	e2e.Git(t, w.dir, "add", "-A")
	e2e.Git(t, w.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "default branch: no specs yet")
	gh := t.TempDir()
	w.event, w.summary = filepath.Join(gh, "event.json"), filepath.Join(gh, "summary.md")
	raw, err := os.ReadFile(e2e.Root(t, "github", "prchannel", "testdata", "events", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.event, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, n := range prs {
		head := fmt.Sprintf("%040x", 0xabc000+n)
		w.heads[n] = head
		if i == 0 {
			w.srv = fake.New(t, "Codertocat", "Hello-World", n, head, e2e.PRAuthor.Login)
		} else {
			w.srv.AddPull(n, head, e2e.PRAuthor.Login)
		}
		title := fmt.Sprintf("Totals %d", n)
		w.srv.SetFile(head, sweepSpecPath, fmt.Sprintf("---\nid: totals-%d\ntitle: %s\ncontracts:\n  - name: totals\n    acceptance_criteria: [\"The total has two decimals\"]\n---\n# %s\n", n, title, title))
		rec := tiers.Present(tiers.Record{}, n, head)
		body := tiers.CommentBody(sweepSpecPath, tiers.Slice{ID: fmt.Sprintf("totals-%d", n), Name: title, Criteria: []string{"The total has two decimals"}}, rec)
		w.comments[n] = w.srv.AddCommentOn(n, fake.Bot, body)
		w.srv.SetStatus(head, "ralph-ci/"+sweepSpecPath, "pending", "awaiting the human checkpoint")
		w.srv.SetStatus(head, "ralph-ci", "pending", "verified 3/3 at "+head[:7]+"; awaiting approval: "+sweepSpecPath) // the run's gate
	}
	w.srv.Perms["alice"], w.srv.Perms["Codertocat"] = "write", "admin"
	w.srv.SetFile(w.srv.BaseSHA, "ralph.yaml", config)
	return w
}

func (w *sweepWorld) command(ctx context.Context) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, w.bin, "check")
	cmd.Dir = w.dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "GITHUB_") && !strings.HasPrefix(k, "RUNNER_") && !strings.HasPrefix(k, "RALPH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GITHUB_ACTIONS=true", "GITHUB_API_URL="+w.srv.URL, "GITHUB_REPOSITORY=Codertocat/Hello-World",
		"GITHUB_TOKEN=test-token", "GITHUB_EVENT_NAME="+w.eventName, "GITHUB_EVENT_PATH="+w.event, "GITHUB_STEP_SUMMARY="+w.summary,
		"GITHUB_WORKSPACE="+w.dir, fmt.Sprintf("GITHUB_RUN_NUMBER=%d", w.runNumber))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// check runs `ralph-ci check` and requires the exit code want.
func (w *sweepWorld) check(want int) (stdout, stderr string) {
	w.t.Helper()
	code, stdout, stderr := w.run()
	if code != want {
		w.t.Fatalf("ralph-ci check: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
	}
	return stdout, stderr
}

// run runs `ralph-ci check` (from any goroutine): its exit code, -1 when
// it could not run or was killed after 30 s.
func (w *sweepWorld) run() (code int, stdout, stderr string) {
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	defer cancel()
	cmd, o, e := w.command(ctx)
	if err := cmd.Run(); err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return code, o.String(), e.String()
}

// Record is the checkpoint record of pull request n, from the marker of
// its one checkpoint comment (more than one is a duplicate).
func (w *sweepWorld) record(n int) tiers.Record {
	w.t.Helper()
	var recs []tiers.Record
	for _, c := range w.srv.CommentsOn(n) {
		if m, err := tiers.ParseMarker(c.Body); err == nil && c.User == fake.Bot {
			recs = append(recs, m.Record)
		}
	}
	if len(recs) != 1 {
		w.t.Fatalf("#%d: want exactly one checkpoint comment, got %d", n, len(recs))
	}
	return recs[0]
}

// Status is the last ralph-ci status on the head of pull request n.
func (w *sweepWorld) status(n int) fake.Status {
	w.t.Helper()
	_, statuses := w.srv.Snapshot()
	for i := len(statuses) - 1; i >= 0; i-- {
		if statuses[i].SHA == w.heads[n] && statuses[i].Context == "ralph-ci/"+sweepSpecPath {
			return statuses[i]
		}
	}
	w.t.Fatalf("#%d: no status on its head", n)
	return fake.Status{}
}

// writes counts the requests that change something on GitHub.
func (w *sweepWorld) writes() int {
	return w.srv.Seen("POST", ".") + w.srv.Seen("PATCH", ".") + w.srv.Seen("DELETE", ".")
}

// gate is the newest `ralph-ci` status on pull request n's head.
func (w *sweepWorld) gate(n int) fake.Status {
	w.t.Helper()
	_, statuses := w.srv.Snapshot()
	for i := len(statuses) - 1; i >= 0; i-- {
		if st := statuses[i]; st.SHA == w.heads[n] && st.Context == "ralph-ci" {
			return st
		}
	}
	w.t.Fatalf("#%d: no ralph-ci status on its head", n)
	return fake.Status{}
}
