package pullrequest

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// TestGitHubThatNeverAnswers: a GitHub API that accepts the connection and
// never answers does not hold `check` until the job's timeout-minutes:
// every request has a deadline (github.timeout), so check fails (exit 1)
// with a message that says so, long before the test's own bound.
func TestGitHubThatNeverAnswers(t *testing.T) {
	t.Parallel()
	w := newPRWorld(t, e2e.RalphBinary(t), map[string]string{"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
github: {approvers: [carol], timeout: 1s}
`})
	w.Srv.Inject(fake.Fault{Method: "GET", Path: `.`, Hang: true, Count: 1000})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, _, stderr := w.Command(ctx, "check")
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("check still waiting on GitHub after 2 minutes:\n%s", stderr)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("check = %v, want exit 1\n%s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "GitHub did not answer within 1s (github.timeout)") {
		t.Errorf("stderr does not say that GitHub did not answer in time:\n%s", stderr)
	}
}
