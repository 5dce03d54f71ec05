package job

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github/jobenv"
	"github.com/ralph-ci/ralph-ci/github/prchannel"
	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/runhost"
	"github.com/ralph-ci/ralph-ci/schema"
)

const head = "0123456789abcdef0123456789abcdef01234567"

// onPR is a job on pull request #7 of a fake GitHub, in a GitHub Actions
// job: the event's payload, the API, the token, the workflow run.
func onPR(t *testing.T) (*Session, *fake.Server) {
	t.Helper()
	gh := fake.New(t, "octo", "repo", 7, head, "Codertocat")
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"number": 7, "pull_request": {"number": 7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	j := &Session{Dir: t.TempDir(), Stdout: &strings.Builder{}, Log: zerolog.Nop()}
	j.Env.PR = jobenv.PR{APIURL: gh.URL, Repository: "octo/repo", Token: "test-token", EventName: "pull_request", EventPath: event}
	j.Env.ServerURL, j.Env.RunID = "https://github.com", "42"
	return j, gh
}

// TestBrokenGate: a config that does not load fails the pull request's
// one status, on its head, pointing at the workflow run.
func TestBrokenGate(t *testing.T) {
	j, gh := onPR(t)
	Open(j).BrokenGate(context.Background(), errors.New("ralph.yaml:2:3: agents: field not allowed"))
	_, statuses := gh.Snapshot()
	if len(statuses) != 1 {
		t.Fatalf("statuses %+v, want one", statuses)
	}
	s := statuses[0]
	if s.SHA != head || s.Context != prchannel.DefaultGateContext || s.State != gate.Failure ||
		!strings.Contains(s.Description, "ralph.yaml:2:3") || s.TargetURL != "https://github.com/octo/repo/actions/runs/42" {
		t.Errorf("status %+v", s)
	}
}

// TestChannel: off a pull request checkpoints go to the terminal; on one,
// to the pull request, whose base decides who may approve.
func TestChannel(t *testing.T) {
	const cfg = "agents:\n  coder: {command: [sh, agent.sh]}\nspecs: {default_tier: auto}\n"
	dir := t.TempDir()
	for name, content := range map[string]string{"ralph.yaml": cfg, "specs/a.spec.md": "# A\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	local := Open(&Session{Stdout: &strings.Builder{}, Log: zerolog.Nop()})
	if ch, err := local.Channel(context.Background(), p); err != nil {
		t.Fatal(err)
	} else if _, ok := ch.(gate.Local); !ok {
		t.Errorf("off a pull request: %T, want gate.Local", ch)
	}
	j, gh := onPR(t)
	gh.SetFile(fake.BaseSHA, "ralph.yaml", cfg)
	ch, err := Open(j).Channel(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := ch.(*prchannel.Client)
	if !ok {
		t.Fatalf("on a pull request: %T, want the pull request's channel", ch)
	}
	if _, ok := ch.(prchannel.GateKeeper); !ok || c.Head() != head {
		t.Errorf("the channel keeps the gate of head %q, want %q", c.Head(), head)
	}
}

// TestRunHostMasksTheHiddenCredential: the run's host masks the
// credential actions/checkout persisted, which the session hid, and the
// door's host stays without it.
func TestRunHostMasksTheHiddenCredential(t *testing.T) {
	const hidden = "hidden-credential-0123456789"
	j := &Session{Log: zerolog.Nop(), Host: &agent.Host{}, hiddenValues: []string{hidden}}
	h := Open(j).RunHost(runhost.Policy{Config: &schema.Config{}})
	if got := h.Mask(hidden); strings.Contains(got, "credential") {
		t.Errorf("the run's host masks %q", got)
	}
	if strings.Contains(j.Host.Mask(hidden), "***") {
		t.Error("building the run's host changed the door's")
	}
}
