package agent

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/schema"
)

// Configured starts an agent of the config: its command in the directory,
// the prompt on stdin, ralph-ci's environment plus the caller's RALPH_*
// variables and then the agent's own env (which wins).
func TestConfiguredEnvironmentAndPrompt(t *testing.T) {
	t.Setenv("RALPH_TEST_INHERITED", "yes")
	dir := t.TempDir()
	s := Start{Name: "coder", Dir: dir, Prompt: "PROMPT\n",
		Env: []string{"RALPH_SPEC=specs/a.spec.md", "SHADOWED=caller"},
		Agent: schema.Agent{Command: []string{"sh", "-c", `cat; pwd; echo "$RALPH_SPEC $RALPH_TEST_INHERITED $SHADOWED $A $B"`}, Format: "text",
			Timeout: schema.Duration(time.Minute), Env: map[string]string{"SHADOWED": "agent", "B": "2", "A": "1"}}}
	res, err := Configured(context.Background(), s)
	if err != nil || res.Failure(err) != Succeeded || s.Failed(res, err) != nil {
		t.Fatalf("%v, %v", err, res.Failure(err))
	}
	want := "PROMPT\n" + dir + "\nspecs/a.spec.md yes agent 1 2"
	if got := strings.TrimSpace(res.Tail); !strings.HasSuffix(got, "specs/a.spec.md yes agent 1 2") || !strings.HasPrefix(got, "PROMPT\n") {
		t.Errorf("output %q, want %q", got, want)
	}
}

// A started process gets ralph-ci's environment with the extra entries
// after it.
func TestEnviron(t *testing.T) {
	t.Setenv("RALPH_TEST_INHERITED", "yes")
	env := BuildEnv(os.Environ(), (*Host)(nil).policy(nil, nil), []string{"X=1"})
	if env[len(env)-1] != "X=1" || !containsEntry(env, "RALPH_TEST_INHERITED=yes") {
		t.Errorf("BuildEnv = %q", env)
	}
}

func containsEntry(env []string, kv string) bool {
	for _, e := range env {
		if e == kv {
			return true
		}
	}
	return false
}

// How an agent run failed, the same for the rotation, the reviewer and
// the judge: not started, cancelled, timed out, non-zero exit, an error
// the CLI reported; each error names the agent.
func TestFailureClasses(t *testing.T) {
	agentOf := func(shell string, timeout time.Duration) schema.Agent {
		return schema.Agent{Command: []string{"sh", "-c", shell}, Format: "text", Timeout: schema.Duration(timeout)}
	}
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		agent schema.Agent
		class Failure
		err   string
	}{
		{"ok", context.Background(), agentOf("echo hi", time.Minute), Succeeded, ""},
		{"fails", context.Background(), agentOf("exit 2", time.Minute), ExitedNonZero, "fails exited with 2"},
		{"slow", context.Background(), agentOf("sleep 5", 200*time.Millisecond), TimedOut, "slow timed out after 200ms"},
		{"missing", context.Background(), schema.Agent{Command: []string{"/no/such/agent"}, Format: "text"}, NotStarted, "missing: starting agent"},
		{"claude error", context.Background(), schema.Agent{Command: []string{"sh", "-c", `cat >/dev/null; echo '{"type":"result","is_error":true,"result":"boom"}'`}, Format: "claude", Timeout: schema.Duration(time.Minute)}, ReportedError, "claude error reported an error: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Start{Name: tc.name, Agent: tc.agent, Dir: t.TempDir()}
			res, err := Configured(tc.ctx, s)
			if got := res.Failure(err); got != tc.class {
				t.Fatalf("class %v, want %v (err %v)", got, tc.class, err)
			}
			ferr := s.Failed(res, err)
			if (ferr == nil) != (tc.err == "") || ferr != nil && !strings.HasPrefix(ferr.Error(), tc.err) {
				t.Errorf("Failed = %v, want %q", ferr, tc.err)
			}
			var fe *FailureError
			if ferr != nil && (!errors.As(ferr, &fe) || fe.Class != tc.class) {
				t.Errorf("Failed = %#v", ferr)
			}
			if ferr != nil && s.Failed(res, err, tc.class) != nil {
				t.Errorf("an ignored class is still a failure")
			}
		})
	}
}

// A run the caller cancelled is Cancelled whatever else it shows.
func TestFailureCancelled(t *testing.T) {
	res := Result{Cancelled: true, TimedOut: true, ExitCode: -1, PID: 42}
	s := Start{Name: "coder"}
	if res.Failure(nil) != Cancelled || s.Failed(res, nil).Error() != "coder cancelled" {
		t.Errorf("class %v, error %v", res.Failure(nil), s.Failed(res, nil))
	}
}
