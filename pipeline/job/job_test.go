package job

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestDeliveryModeOf: the flag wins over the config; an unknown mode is a
// usage error.
func TestDeliveryModeOf(t *testing.T) {
	cfg := &schema.Config{}
	cfg.Delivery.Mode = "commit"
	for flag, want := range map[string]string{"": "commit", "pr": "pr", "none": "none", "branch": "branch"} {
		if got, err := deliveryMode(flag, cfg); err != nil || got.Name != want {
			t.Errorf("deliveryMode(%q) = %q, %v; want %q", flag, got.Name, err, want)
		}
	}
	var ue *exitcode.UsageError
	if _, err := deliveryMode("push", cfg); !errors.As(err, &ue) || !strings.Contains(err.Error(), `--deliver "push": want none, commit, pr or branch`) {
		t.Errorf("deliveryMode(push): %v, want a usage error", err)
	}
}

// TestEnvFrom: the environment's values land where the commands read
// them, and the run's page is known only with server, repository and run.
func TestEnvFrom(t *testing.T) {
	env := map[string]string{"GITHUB_SERVER_URL": "https://ghes.example.com/", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42",
		"GITHUB_REF_NAME": "main", "RALPH_ACTION": "1", "RALPH_FAIL_ON_WAITING": "true", "RUNNER_DEBUG": "1"}
	e := EnvFrom(func(k string) string { return env[k] })
	if !e.Action || !e.FailOnWaiting || !e.RunnerDebug || e.RefName != "main" {
		t.Errorf("EnvFrom: %+v", e)
	}
	if got, want := e.RunURL(), "https://ghes.example.com/o/r/actions/runs/42"; got != want {
		t.Errorf("RunURL = %q, want %q", got, want)
	}
	e.RunID = ""
	if got := e.RunURL(); got != "" {
		t.Errorf("RunURL without a run = %q, want none", got)
	}
}

// TestExit: in the Action, waiting for a person ends the step green
// unless fail-on-waiting is set, and the exit-code output says 6 either
// way; outside the Action every code is the process's.
func TestExit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		action, fail  bool
		code, want    exitcode.Code
		notice, wrote bool
	}{
		{"laptop", false, false, exitcode.AwaitHuman, exitcode.AwaitHuman, false, false},
		{"action waits", true, false, exitcode.AwaitHuman, exitcode.OK, true, true},
		{"fail on waiting", true, true, exitcode.AwaitHuman, exitcode.AwaitHuman, false, true},
		{"action limits", true, false, exitcode.Limits, exitcode.Limits, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Env{Action: tc.action, FailOnWaiting: tc.fail}
			e.Actions.Output = filepath.Join(t.TempDir(), "output")
			var stdout bytes.Buffer
			if got := e.Exit(tc.code, &stdout); got != tc.want {
				t.Errorf("Exit = %d, want %d", got, tc.want)
			}
			if got := strings.Contains(stdout.String(), "the step ends green"); got != tc.notice {
				t.Errorf("notice %v, want %v: %q", got, tc.notice, stdout.String())
			}
			out, _ := os.ReadFile(e.Actions.Output)
			if got := strings.Contains(string(out), "exit-code"); got != tc.wrote {
				t.Errorf("exit-code output %v, want %v: %q", got, tc.wrote, out)
			}
		})
	}
}

// TestShown: where things stand is printed, and a code other than 0 comes
// back already shown.
func TestShown(t *testing.T) {
	var stdout bytes.Buffer
	j := &Session{Stdout: &stdout, Log: zerolog.Nop()}
	if err := j.Shown([]string{"a\tapproved"}, exitcode.OK, "all approved"); err != nil {
		t.Errorf("OK: %v", err)
	}
	err := j.Shown([]string{"b\tpending"}, exitcode.AwaitHuman, "b waits")
	var ce *exitcode.Error
	if !errors.As(err, &ce) || ce.Code != exitcode.AwaitHuman || !ce.Printed {
		t.Errorf("AwaitHuman: %#v, want exit 6, printed", err)
	}
	if stdout.String() != "a\tapproved\nb\tpending\n" {
		t.Errorf("stdout %q", stdout.String())
	}
}

// TestLoadPrintsProblems: a config with a problem is a usage error shown
// once: file:line on stdout and, on GitHub Actions, an annotation.
func TestLoadPrintsProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ralph.yaml"), []byte("agents:\n  coder: {comand: [sh]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	j := &Session{Dir: dir, Stdout: &stdout, Log: zerolog.Nop()}
	j.Env.Actions.Actions = true
	_, err := j.Load()
	var ce *exitcode.Error
	if !errors.As(err, &ce) || ce.Code != exitcode.Usage || !ce.Printed {
		t.Fatalf("Load: %#v, want exit 2, printed", err)
	}
	if out := stdout.String(); !strings.Contains(out, "ralph.yaml:2:") || !strings.Contains(out, "::error file=") {
		t.Errorf("stdout %q: want the problem and its annotation", out)
	}
}
