package check

import (
	"context"
	"github.com/ralph-ci/ralph-ci/github/jobenv"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
)

const head = "0123456789abcdef0123456789abcdef01234567"

const autoConfig = "agents:\n  coder: {command: [sh, agent.sh]}\nspecs: {default_tier: auto}\n"

// TestRunOnAPullRequest: check on a pull request whose specs no run has
// verified at its head sets the one status to pending, saying so, and
// exits 0 (no checkpoint waits); without a token it fails and says how to
// give one.
func TestRunOnAPullRequest(t *testing.T) {
	gh := fake.New(t, "octo", "repo", 7, head, "Codertocat")
	gh.SetFile(fake.BaseSHA, "ralph.yaml", autoConfig)
	dir := write(t, map[string]string{"ralph.yaml": autoConfig, "specs/a.spec.md": "# A\n"})
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"number": 7, "pull_request": {"number": 7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	j, _ := newJob(dir)
	j.Env.PR = jobenv.PR{APIURL: gh.URL, Repository: "octo/repo", EventName: "pull_request", EventPath: event}
	err := Run(context.Background(), job.Open(j), Options{Every: DefaultPollInterval})
	if exitcode.Of(err) != exitcode.Failure || !strings.Contains(err.Error(), "RALPH_TOKEN_FD") {
		t.Fatalf("no token: %v, want exit 1 saying how to give the token", err)
	}
	j.Env.PR.Token = "test-token"
	if err := Run(context.Background(), job.Open(j), Options{Every: DefaultPollInterval}); err != nil {
		t.Fatalf("check: %v", err)
	}
	_, statuses := gh.Snapshot()
	if len(statuses) != 1 || statuses[0].SHA != head || statuses[0].State != gate.Pending ||
		!strings.Contains(statuses[0].Description, "no run of the loop verified every spec at this commit") {
		t.Errorf("statuses %+v, want ralph-ci pending on the head: not verified there", statuses)
	}
}
