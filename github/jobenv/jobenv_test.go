package jobenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// TestFrom: the environment's values land where the commands read
// them, and the run's page is known only with server, repository and run.
func TestFrom(t *testing.T) {
	env := map[string]string{"GITHUB_SERVER_URL": "https://ghes.example.com/", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42",
		"GITHUB_REF_NAME": "main", "RALPH_ACTION": "1", "RALPH_FAIL_ON_WAITING": "true", "RUNNER_DEBUG": "1"}
	e := From(func(k string) string { return env[k] })
	if !e.Action || !e.FailOnWaiting || !e.RunnerDebug || e.RefName != "main" {
		t.Errorf("From: %+v", e)
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
