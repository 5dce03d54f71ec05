package pullrequest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// One job session per command, built at the door: through the binary, on
// the events that once built a client at several sites and read the
// event again (a run delivering to a pull request, check on it, check
// with a broken config, a scheduled sweep of several pull requests, a
// merge group), the job's debug log says one GitHub client was built and
// the event was read once. github.New logs every client it builds, and
// pipeline/job's TestOneDoor keeps both calls in the session.
func TestOneClientOneEventRead(t *testing.T) {
	bin := e2e.RalphBinary(t)
	once := func(t *testing.T, what, stderr string) {
		t.Helper()
		clients := strings.Count(stderr, `"GitHub API: client built"`)
		reads := strings.Count(stderr, `"job session: event read"`)
		if clients != 1 || reads != 1 {
			t.Errorf("%s: %d GitHub clients built and the event read %d times, want one of each; the log:\n%s", what, clients, reads, stderr)
		}
	}

	t.Run("run and check on a pull request", func(t *testing.T) {
		w := protected(t, e2e.CIRepoFiles)
		w.Job("", "")
		_, stderr := w.Ralph(6, "run", "--deliver", "pr", "--log-level", "debug")
		once(t, "run --deliver pr", stderr)
		head := w.Rev("refs/heads/changes")
		w.WantGate(head, "pending", "awaiting approval")

		w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1")
		w.Job(head, "refs/remotes/origin/changes")
		_, stderr = w.Ralph(0, "check", "--deliver", "pr", "--log-level", "debug")
		once(t, "check --deliver pr", stderr)
		w.WantGate(head, "success", "every checkpoint approved")

		// A config that does not load fails the gate, through the same client.
		if err := os.WriteFile(filepath.Join(w.Dir, "ralph.yaml"), []byte("agents: [\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr = w.Ralph(2, "check", "--log-level", "debug")
		once(t, "check with a broken config", stderr)
		w.WantGate(head, "failure", "ralph.yaml")
	})

	t.Run("a scheduled sweep", func(t *testing.T) {
		w := newSweepWorld(t, bin, sweepConfig, "schedule", 1, 2, 3)
		w.srv.React(w.comments[2], e2e.Alice, "+1")
		_, stderr := w.checkWith(6, "--log-level", "debug") // #1 and #3 wait
		once(t, "check on a schedule", stderr)
		if st := w.gate(2); st.State != "success" {
			t.Fatalf("#2 approved: ralph-ci %s %q, want success", st.State, st.Description)
		}
	})

	t.Run("a merge group", func(t *testing.T) {
		w := newSweepWorld(t, bin, sweepConfig, "schedule", 1, 2)
		const group = "6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d"
		w.eventName = "merge_group"
		payload := fmt.Sprintf(`{"action":"checks_requested","merge_group":{"head_sha":%q,"head_ref":"refs/heads/gh-readonly-queue/master/pr-2-%s","base_sha":%q,"base_ref":"refs/heads/master"}}`,
			group, w.heads[2], w.srv.BaseSHA)
		if err := os.WriteFile(w.event, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		h1, h2 := w.heads[1], w.heads[2]
		w.srv.Ancestor = func(a, b string) bool { return b == group && (a == h1 || a == h2) }
		for _, n := range []int{1, 2} {
			w.srv.SetStatus(w.heads[n], "ralph-ci", "success", "verified 3/3, every checkpoint approved")
		}
		_, stderr := w.checkWith(0, "--log-level", "debug")
		once(t, "check on a merge group", stderr)
	})
}

// checkWith runs `ralph-ci check ARGS...` and requires the exit code want.
func (w *sweepWorld) checkWith(want int, args ...string) (stdout, stderr string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	defer cancel()
	cmd, o, e := w.command(ctx)
	cmd.Args = append(cmd.Args, args...)
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err != nil && code < 0 || code != want {
		w.t.Fatalf("ralph-ci check %s: exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, err, want, o, e)
	}
	return o.String(), e.String()
}
