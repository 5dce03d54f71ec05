package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

var (
	Alice    = fake.User{Login: "alice", ID: 10, Type: "User"}          // write
	Mallory  = fake.User{Login: "mallory", ID: 11, Type: "User"}        // read only
	Depbot   = fake.User{Login: "dependabot[bot]", ID: 12, Type: "Bot"} // a bot
	Carol    = fake.User{Login: "carol", ID: 13, Type: "User"}          // github.approvers, no permission
	PRAuthor = fake.User{Login: "Codertocat", ID: 14, Type: "User"}     // the PR's author (admin)
	Stranger = fake.User{Login: "stranger", ID: 15, Type: "User"}       // not a collaborator
)

// PRAgent is the scripted agent: it claims DONE with the promise and
// changes nothing, so a spec is verified 3/3 in three rotations. It keeps
// every prompt it got, numbered, after a line naming the spec, in $PROMPTS (outside the repository, so
// that a test may remove .ralph/ as a new workflow run would).
const PRAgent = `prompt=$(cat)
n=$(ls "$PROMPTS" | wc -l)
printf 'RALPH_SPEC=%s\n%s\n' "$RALPH_SPEC" "$prompt" > "$PROMPTS/$((n + 1)).txt"
printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

var PRRepoFiles = map[string]string{
	"ralph.yaml": `agents:
  coder: {command: [sh, agent.sh], timeout: 1m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
github: {approvers: [carol]}
`,
	"specs/a.spec.md": `---
id: cart-totals
title: Totals
contracts:
  - name: totals
    acceptance_criteria: ["The total has two decimals"]
    steps: ["Open /cart and read the total"]
  - name: export
    verification: auto
    acceptance_criteria: ["The CSV export has the total"]
---
# Totals
`,
	"specs/b.spec.md": "---\ntitle: Refactor\ncontracts:\n  - name: refactor\n    verification: auto\n---\n# Refactor\n",
	"agent.sh":        PRAgent,
	".gitignore":      ".ralph/\n",
}

const SpecA = "specs/a.spec.md"

type PRWorld struct {
	T                      *testing.T
	Bin, Dir, HeadSHA      string
	Srv                    *fake.Server
	Event, Summary, Output string
	Prompts                string
	ExtraEnv               []string // more of the job's environment
}

// StartGitHub makes the job's GitHub files (event, summary, outputs), the
// agent's prompt folder, and the fake GitHub with the pull request of the
// payloads at w.head, whose base has baseConfig as ralph.yaml.
func (w *PRWorld) StartGitHub(baseConfig string) {
	t := w.T
	gh := t.TempDir()
	w.Event, w.Summary, w.Output = filepath.Join(gh, "event.json"), filepath.Join(gh, "summary.md"), filepath.Join(gh, "output.txt")
	// The agent writes there: as root, ralph-ci runs it as its own user
	// (box.user), which may not enter the test's 0700 folders.
	w.Prompts = filepath.Join(AgentDir(t), "prompts")
	if err := os.Mkdir(w.Prompts, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(w.Prompts, 0o777); err != nil {
		t.Fatal(err)
	}
	w.SetEvent("pull_request.opened.json")
	// The payloads' repository and pull request: Codertocat/Hello-World#2,
	// opened by Codertocat.
	w.Srv = fake.New(t, "Codertocat", "Hello-World", 2, w.HeadSHA, PRAuthor.Login)
	w.Srv.Perms["alice"], w.Srv.Perms["mallory"], w.Srv.Perms["Codertocat"] = "write", "read", "admin"
	w.Srv.SetFile(w.Srv.BaseSHA, "ralph.yaml", baseConfig)
}

// Commit commits everything and makes it the head.
func (w *PRWorld) Commit(msg string) {
	Git(w.T, w.Dir, "add", "-A")
	Git(w.T, w.Dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", msg)
	out, err := exec.Command("git", "-C", w.Dir, "rev-parse", "HEAD").Output()
	if err != nil {
		w.T.Fatal(err)
	}
	w.HeadSHA = strings.TrimSpace(string(out))
}

// SetEvent writes a real webhook payload as the event of the job.
func (w *PRWorld) SetEvent(name string) {
	raw, err := os.ReadFile(Root(w.T, "github", "prchannel", "testdata", "events", name))
	if err != nil {
		w.T.Fatal(err)
	}
	if err := os.WriteFile(w.Event, raw, 0o644); err != nil {
		w.T.Fatal(err)
	}
}

// PushFile adds a commit to the pull request: a new head, and the job runs on
// its synchronize event.
func (w *PRWorld) PushFile(file string) {
	if err := os.WriteFile(filepath.Join(w.Dir, file), []byte(file+"\n"), 0o644); err != nil {
		w.T.Fatal(err)
	}
	w.Commit("push " + file)
	w.Srv.SetHead(w.HeadSHA)
	w.SetEvent("pull_request.synchronize.json")
}

func (w *PRWorld) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "RALPH_") {
			continue // the tests' own CI must not leak in
		}
		env = append(env, kv)
	}
	env = append(env, "GITHUB_ACTIONS=true", "GITHUB_API_URL="+w.Srv.URL, "GITHUB_REPOSITORY=Codertocat/Hello-World",
		"GITHUB_TOKEN=test-token", "GITHUB_SHA="+w.HeadSHA, "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+w.Event,
		"GITHUB_STEP_SUMMARY="+w.Summary, "GITHUB_OUTPUT="+w.Output, "GITHUB_WORKSPACE="+w.Dir, "PROMPTS="+w.Prompts)
	env = append(env, w.ExtraEnv...)
	return env
}

func (w *PRWorld) Command(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, w.Bin, args...)
	cmd.Dir, cmd.Env = w.Dir, w.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// Ralph runs the binary and requires the exit code want.
func (w *PRWorld) Ralph(want int, args ...string) (stdout, stderr string) {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd, o, e := w.Command(ctx, args...)
	w.Exit(want, cmd.Run(), args, o, e)
	return o.String(), e.String()
}

func (w *PRWorld) Exit(want int, err error, args []string, o, e *bytes.Buffer) {
	w.T.Helper()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.T.Fatalf("ralph-ci %s: %v", strings.Join(args, " "), err)
	}
	if code != want {
		w.T.Fatalf("ralph-ci %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, o, e)
	}
}

// Checkpoint is the one checkpoint comment on the pull request (more than
// one is a duplicate).
func (w *PRWorld) Checkpoint() fake.Comment {
	w.T.Helper()
	var found []fake.Comment
	comments, _ := w.Srv.Snapshot()
	for _, c := range comments {
		if c.User == fake.Bot && tiers.HasMarker(c.Body) { // not the progress comment
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		w.T.Fatalf("want exactly one checkpoint comment, got %d: %+v", len(found), found)
	}
	if !strings.Contains(found[0].Body, "`"+SpecA+"`") {
		w.T.Fatalf("the checkpoint comment is not for %s:\n%s", SpecA, found[0].Body)
	}
	return found[0]
}

// CheckpointOf is the one checkpoint comment of spec, when several specs
// have one.
func (w *PRWorld) CheckpointOf(spec string) (fake.Comment, tiers.Record) {
	w.T.Helper()
	var found []fake.Comment
	var rec tiers.Record
	comments, _ := w.Srv.Snapshot()
	for _, c := range comments {
		if m, err := tiers.ParseMarker(c.Body); err == nil && c.User == fake.Bot && m.Spec == spec {
			found, rec = append(found, c), m.Record
		}
	}
	if len(found) != 1 {
		w.T.Fatalf("want exactly one checkpoint comment of %s, got %d", spec, len(found))
	}
	return found[0], rec
}

// Record is the checkpoint's record, as its comment's marker carries it
// across workflow runs.
func (w *PRWorld) Record() tiers.Record {
	w.T.Helper()
	m, err := tiers.ParseMarker(w.Checkpoint().Body)
	if err != nil {
		w.T.Fatal(err)
	}
	return m.Record
}

// Status is the last commit status of SpecA.
func (w *PRWorld) Status() fake.Status {
	w.T.Helper()
	_, statuses := w.Srv.Snapshot()
	for i := len(statuses) - 1; i >= 0; i-- {
		if statuses[i].Context == "ralph-ci/specs/b.spec.md" {
			w.T.Fatalf("a commit status for the auto-tier spec: %+v", statuses[i])
		}
		if statuses[i].Context == "ralph-ci/"+SpecA {
			return statuses[i]
		}
	}
	w.T.Fatal("no commit status")
	return fake.Status{}
}

func (w *PRWorld) WantStatus(state string) {
	w.T.Helper()
	if st := w.Status(); st.State != state || st.SHA != w.HeadSHA {
		w.T.Fatalf("commit status %+v, want %s on %s", st, state, w.HeadSHA)
	}
}

// prompts counts the prompts the agent got so far.
func (w *PRWorld) PromptCount() int {
	entries, err := os.ReadDir(w.Prompts)
	if err != nil {
		w.T.Fatal(err)
	}
	return len(entries)
}

// PromptAfter is the first prompt of SpecA after the first n prompts.
func (w *PRWorld) PromptAfter(n int) string {
	w.T.Helper()
	for i := n + 1; i <= w.PromptCount(); i++ {
		b, err := os.ReadFile(filepath.Join(w.Prompts, fmt.Sprintf("%d.txt", i)))
		if err != nil {
			w.T.Fatal(err)
		}
		if strings.HasPrefix(string(b), "RALPH_SPEC="+SpecA+"\n") {
			return string(b)
		}
	}
	w.T.Fatalf("no rotation of %s after the first %d", SpecA, n)
	return ""
}

func Contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

// AgentDir is a folder of the test's that the agent's user of its own
// (box.user, where ralph-ci runs as root) may write, and that Landlock
// lets the agent write where the config has RecordsGrant: RecordDir.
func AgentDir(t testing.TB) string {
	t.Helper()
	return RecordDir(t)
}

// GiveAgent gives dir, and everything under it, to the agent's users of
// their own where the tests run as root (box.user auto): a CLI's
// settings folder (CODEX_HOME, a HOME the agent's env names) that the
// CLI writes, whichever user of the pool a run holds (ShareWithAgents).
func GiveAgent(t testing.TB, dir string) {
	t.Helper()
	ShareWithAgents(t, dir)
}
