package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/matrix"
)

// planAgent plays line N of plan.txt at rotation N (shell), with promise
// (the criteria marked done and the prompt's promise tag) and status WORD.
const planAgent = `prompt=$(cat)
line=$(sed -n "${RALPH_ITERATION}p" plan.txt)
promise() { printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'; printf '%s\n' "$prompt" | grep -o '^<promise>.*</promise>$' | head -n 1; }
status() { echo "RALPH_STATUS: $1"; }
eval "$line"
`

const config = "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
	"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n"

// doneInFour works once, then claims done three times: verified 3/3.
const doneInFour = "echo one > one.txt; status CONTINUE\npromise; status DONE\npromise; status DONE\npromise; status DONE\n"

// repo makes a committed git repository with the config, one spec, the
// agent and its plan, and returns its root.
func repo(t *testing.T, plan string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for name, content := range map[string]string{"ralph.yaml": config, "specs/a.spec.md": "# A\n", "agent.sh": planAgent,
		"plan.txt": plan, ".gitignore": ".ralph/\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "start")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// newJob is a job on dir outside GitHub Actions: stdout and the log in
// buffers.
func newJob(dir string) (*job.Session, *bytes.Buffer, *bytes.Buffer) {
	var stdout, log bytes.Buffer
	return &job.Session{Dir: dir, Stdout: &stdout, Log: zerolog.New(&log), Host: &agent.Host{}, Version: "test"}, &stdout, &log
}

// reportExit reads the exit of the JSON report at path.
func reportExit(t *testing.T, path string) (int, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the JSON report: %v", err)
	}
	var r struct {
		Exit struct {
			Code  int    `json:"code"`
			Class string `json:"class"`
		} `json:"exit"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r.Exit.Code, r.Exit.Class
}

// TestRunVerifiedEndsZero: a spec verified 3/3 ends the run with no
// error; the matrix of specs is printed and the report records exit 0.
func TestRunVerifiedEndsZero(t *testing.T) {
	dir := repo(t, doneInFour)
	j, stdout, log := newJob(dir)
	report := filepath.Join(t.TempDir(), "report.json")
	if err := Run(context.Background(), job.Open(j), Options{JSON: report}); err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	if !strings.Contains(stdout.String(), "specs/a.spec.md") || !strings.Contains(stdout.String(), "3/3") {
		t.Errorf("stdout %q: want the matrix with specs/a.spec.md at 3/3", stdout)
	}
	if code, class := reportExit(t, report); code != 0 || class != "done" {
		t.Errorf("report exit %d %s, want 0 done", code, class)
	}
}

// TestRunLeavesTheDoorsHost: a run builds its host once from the door's
// (job.Session.RunHost); the door's own, which the job shares, is the same
// after the run as before it (no box, network or secret set on it
// mid-run).
func TestRunLeavesTheDoorsHost(t *testing.T) {
	dir := repo(t, doneInFour)
	j, _, log := newJob(dir)
	j.Host.AddSecrets("door-secret-0123456789")
	before := *j.Host.Clone()
	if err := Run(context.Background(), job.Open(j), Options{JSON: filepath.Join(t.TempDir(), "r.json")}); err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	if !reflect.DeepEqual(*j.Host, before) {
		t.Errorf("the door's host changed during the run:\n%+v\nwant\n%+v", *j.Host, before)
	}
}

// TestRunLimitsDecidesTheExitOnce: a run stopped by --max-rotations ends
// with exit 3, already shown (the log says it), and the report written
// after the decision carries the same code.
func TestRunLimitsDecidesTheExitOnce(t *testing.T) {
	dir := repo(t, "status CONTINUE\nstatus CONTINUE\nstatus CONTINUE\n")
	j, _, log := newJob(dir)
	report := filepath.Join(t.TempDir(), "report.json")
	err := Run(context.Background(), job.Open(j), Options{MaxRotations: 2, JSON: report})
	var ce *exitcode.Error
	if !errors.As(err, &ce) || ce.Code != exitcode.Limits || !ce.Printed {
		t.Fatalf("run: %#v, want exit 3, printed", err)
	}
	if code, class := reportExit(t, report); code != 3 || class != "limits" {
		t.Errorf("report exit %d %s, want 3 limits", code, class)
	}
	if !strings.Contains(log.String(), `"exit":"limits"`) {
		t.Errorf("log %s: want the exit class", log)
	}
}

// TestRunReportFailureFailsADoneRun: a report that cannot be written
// turns a run that would end 0 into a failure (exitcode.RunEnd).
func TestRunReportFailureFailsADoneRun(t *testing.T) {
	dir := repo(t, doneInFour)
	j, _, _ := newJob(dir)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), job.Open(j), Options{JSON: filepath.Join(blocker, "report.json")})
	if exitcode.Of(err) != exitcode.Failure {
		t.Fatalf("run: %v (exit %d), want exit 1", err, exitcode.Of(err))
	}
}

// TestRunDeliverCommit: --deliver commit makes the rotation that changed
// files one commit by ralph-ci, with its trailers.
func TestRunDeliverCommit(t *testing.T) {
	dir := repo(t, doneInFour)
	j, _, log := newJob(dir)
	j.Deliver = "commit"
	if err := Run(context.Background(), job.Open(j), Options{JSON: filepath.Join(t.TempDir(), "r.json")}); err != nil {
		t.Fatalf("run: %v\n%s", err, log)
	}
	got := git(t, dir, "log", "--format=%an|%(trailers:key=Ralph-Spec,valueonly)")
	if !strings.HasPrefix(got, "ralph-ci|specs/a.spec.md") {
		t.Errorf("git log: %q, want ralph-ci's commit of specs/a.spec.md on top", got)
	}
}

// TestRunRefusesBadCommandLines: what cannot work is a usage error before
// any agent runs.
func TestRunRefusesBadCommandLines(t *testing.T) {
	for name, tc := range map[string]struct {
		o       Options
		deliver string
		want    string
	}{
		"negative rotations": {Options{MaxRotations: -1}, "", "--max-rotations -1"},
		"unknown mode":       {Options{}, "push", `--deliver "push": want none, commit, pr or branch`},
		"shard off pr":       {Options{Matrix: matrix.Part{Shard: "1-of-2"}}, "", "need a delivery whose state travels in git"},
		"specs, no shard":    {Options{Matrix: matrix.Part{Specs: []string{"specs/a.spec.md"}}}, "pr", "--specs needs --shard"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := repo(t, "status CONTINUE\n")
			j, _, _ := newJob(dir)
			j.Deliver = tc.deliver
			err := Run(context.Background(), job.Open(j), tc.o)
			var ue *exitcode.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run: %v, want a usage error saying %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".ralph", "state.json")); err == nil {
				t.Error("a state was saved: the loop ran")
			}
		})
	}
}

// TestRunNotOnAForkNobodyAsked: a fork's pull request that no person with
// write access asked ralph-ci to run on ends with a notice and exit 0,
// before anything is loaded.
func TestRunNotOnAForkNobodyAsked(t *testing.T) {
	event := filepath.Join(t.TempDir(), "event.json")
	payload := `{"pull_request": {"number": 7, "head": {"ref": "feature", "sha": "abc", "repo": {"full_name": "someone/fork"}}, "base": {"repo": {"full_name": "owner/repo"}}}}`
	if err := os.WriteFile(event, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	j, stdout, _ := newJob(t.TempDir()) // no config: loading would fail
	j.Env.PR.EventName, j.Env.PR.EventPath = "pull_request", event
	if err := Run(context.Background(), job.Open(j), Options{}); err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := "::notice title=ralph-ci::pull request #7 comes from a fork (someone/fork)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout %q: want %q", stdout, want)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeFile(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}
