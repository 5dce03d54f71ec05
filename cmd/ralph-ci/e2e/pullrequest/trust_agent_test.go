package pullrequest

import (
	"encoding/base64"
	"fmt"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// The agent is untrusted code (issue 12): end to end through the ralph-ci
// binary, in GitHub Actions' environment with the fake GitHub, an agent
// that hunts for the job's token finds it nowhere, cannot write the job's
// files, and what secret it prints is masked.

// hunter is the attacking agent. It copies everything it can read that
// could hold the token into $LOOT, lists in $LOOT/targets the job files
// it can name (from its environment or any /proc/*/environ it can read),
// and prints its API key inside the promise tag (a claim ralph-ci
// rejects, naming what it got). Then it does the work. It looks
// everywhere but writes only under $OWN, the test's own temporary
// folder: the job files of other processes of the same user (another
// test, a CI job on the same machine) are recorded, never written.
const hunter = `prompt=$(cat)
if [ -f "$LOOT/env" ]; then # hunted already: finish the work
	printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
	printf '%s\n' "$prompt" | grep -o '^<promise>.*</promise>$' | head -n 1
	echo "RALPH_STATUS: DONE"
	exit 0
fi
env > "$LOOT/env"
cat .git/config > "$LOOT/git-config" 2>&1
git config --list --show-origin --includes > "$LOOT/git-config-list" 2>&1
for f in $(git config --get-all include.path) $(git config --get-regexp '^includeif\.' | cut -d' ' -f2); do cat "$f"; done > "$LOOT/git-includes" 2>&1
printf 'protocol=https\nhost=github.com\n\n' | GIT_TERMINAL_PROMPT=0 git credential fill > "$LOOT/credential-fill" 2>&1
ralph=$(awk '{print $4}' /proc/$PPID/stat)
for p in $PPID $ralph; do
	cat /proc/$p/environ /proc/$p/cmdline; ls -l /proc/$p/fd
done > "$LOOT/parents" 2>&1
for p in /proc/[0-9]*; do tr '\0' '\n' < $p/environ; tr '\0' ' ' < $p/cmdline; echo; done > "$LOOT/procs" 2>/dev/null
for v in GITHUB_ENV GITHUB_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY; do
	eval "f=\${$v:-}"; [ -n "$f" ] && echo "$f"
	grep -h "^$v=" "$LOOT/procs" | cut -d= -f2-
done > "$LOOT/targets"
while read -r f; do
	case "$f" in "$OWN"/*) echo "PWNED=1" >> "$f" ;; esac
done < "$LOOT/targets"
echo "my key is $ANTHROPIC_API_KEY"
echo "<promise>$ANTHROPIC_API_KEY</promise>"
echo "RALPH_STATUS: DONE"
`

func TestAgentFindsNoCredential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ralph-ci as a subprocess")
	}
	bin := e2e.RalphBinary(t)
	for _, handed := range []string{"on a file descriptor", "in a 0600 file", "in GITHUB_TOKEN"} {
		t.Run("token "+handed, func(t *testing.T) {
			t.Parallel()
			token := fmt.Sprintf("ghs_hunted%dtoken%x", os.Getpid(), time.Now().UnixNano())
			header := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
			apiKey := fmt.Sprintf("sk-ant-api03-%x", time.Now().UnixNano())
			// box.user off: the hunt is by a process of ralph-ci's own
			// user (the boundary the job's token needs without a user of
			// the agent's own); TestAgentUserKeepsRalphOutOfReach is the
			// hunt by that user.
			w := newPRWorld(t, bin, map[string]string{"agent.sh": hunter, "ralph.yaml": e2e.PRRepoFiles["ralph.yaml"] + "box: {user: off}\n"})
			w.Srv.Token = token
			// actions/checkout's persisted credential: in .git/config, and
			// in a file it includes (outside the workspace, as in v6).
			e2e.Git(t, w.Dir, "config", "--local", "http.https://github.com/.extraheader", header)
			include := filepath.Join(t.TempDir(), "git-credentials.config")
			e2e.Git(t, w.Dir, "config", "--file", include, "http.https://github.com/.extraheader", header)
			e2e.Git(t, w.Dir, "config", "--local", "include.path", include)
			loot := e2e.RecordDir(t)         // the hunter writes what it found there (RecordsGrant)
			own := filepath.Dir(t.TempDir()) // the subtest's temporary folder: w's files are under it
			decoy := startDecoyJob(t)

			ctx := t.Context()
			cmd, o, e := w.Command(ctx, "run")
			env := []string{"LOOT=" + loot, "OWN=" + own, "ANTHROPIC_API_KEY=" + apiKey, "RALPH_ACTION=1", "RALPH_FAIL_ON_WAITING=true", "ACTIONS_RUNTIME_TOKEN=" + token + "-rt"}
			for _, kv := range cmd.Env {
				if !strings.HasPrefix(kv, "GITHUB_TOKEN=") {
					env = append(env, kv)
				}
			}
			switch handed {
			case "on a file descriptor":
				r, wr, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintln(wr, token)
				wr.Close()
				cmd.ExtraFiles = []*os.File{r} // fd 3
				env = append(env, "RALPH_TOKEN_FD=3")
			case "in a 0600 file":
				f := filepath.Join(t.TempDir(), "token")
				if err := os.WriteFile(f, []byte(token), 0o600); err != nil {
					t.Fatal(err)
				}
				env = append(env, "RALPH_TOKEN_FILE="+f)
				t.Cleanup(func() {
					if _, err := os.Stat(f); err == nil {
						t.Error("the token file was not deleted")
					}
				})
			default:
				env = append(env, "GITHUB_TOKEN="+token)
			}
			cmd.Env = env
			w.Exit(6, cmd.Run(), []string{"run"}, o, e)

			// The hunt ran: it read its own environment and other processes'.
			for name, want := range map[string]string{"env": "RALPH_SPEC=", "procs": "PATH="} {
				raw, _ := os.ReadFile(filepath.Join(loot, name))
				if !strings.Contains(string(raw), want) {
					t.Fatalf("the agent's %s holds no %q: the hunt did not run", name, want)
				}
			}
			secrets := []string{token, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token)), apiKey}
			entries, _ := os.ReadDir(loot)
			for _, ent := range entries {
				raw, _ := os.ReadFile(filepath.Join(loot, ent.Name()))
				for _, s := range secrets {
					if strings.Contains(string(raw), s) {
						t.Errorf("the agent found the token in %s:\n%s", ent.Name(), raw)
					}
				}
			}
			// The job's files: ralph-ci wrote them, the agent could neither
			// name nor write them; another process's, which the agent may
			// reach (the control), it named and wrote.
			targets, _ := os.ReadFile(filepath.Join(loot, "targets"))
			for _, f := range []string{w.Output, w.Summary} {
				raw, _ := os.ReadFile(f)
				if strings.Contains(string(raw), "PWNED") || strings.Contains(string(targets), f) {
					t.Errorf("the agent found or wrote %s:\n%s\ntargets:\n%s", f, raw, targets)
				}
			}
			// Another job's process of the same user: where Landlock holds
			// (the default) the agent can neither read its environment (a
			// Landlock domain may not trace, and so not read the /proc
			// environ of, a process outside it) nor write its files; without
			// Landlock it names and writes them (the control: the hunt
			// reaches what it may).
			raw, _ := os.ReadFile(decoy)
			named, written := strings.Contains(string(targets), decoy), strings.Contains(string(raw), "PWNED")
			switch landlock := shepherd.LandlockABI() > 0; {
			case landlock && (named || written):
				t.Errorf("under Landlock the agent named (%t) or wrote (%t) the decoy job's %s", named, written, decoy)
			case !landlock && (!named || !written):
				t.Fatalf("the hunt did not reach the decoy job's %s (targets:\n%s): it cannot tell what it reaches", decoy, targets)
			}
			out, _ := os.ReadFile(w.Output)
			e2e.Contains(t, "GITHUB_OUTPUT", string(out), "exit-code=6")
			// The credential is back in the git config for the later steps.
			for _, f := range []string{filepath.Join(w.Dir, ".git", "config"), include} {
				raw, _ := os.ReadFile(f)
				e2e.Contains(t, f, string(raw), header)
			}
			// The agent has no API key to print (ralph-ci's proxy holds
			// it, and a text agent declares no model API); what it
			// printed reaches the history log and the reports as it was.
			logs, _ := filepath.Glob(filepath.Join(w.Dir, ".ralph", "history", "*", "*.log"))
			reports, _ := filepath.Glob(filepath.Join(w.Dir, ".ralph", "reports", "*"))
			if len(logs) == 0 || len(reports) < 2 {
				t.Fatalf("history logs %v, reports %v", logs, reports)
			}
			for _, f := range append(logs, reports...) {
				raw, _ := os.ReadFile(f)
				if strings.Contains(string(raw), apiKey) || strings.Contains(string(raw), token) {
					t.Errorf("%s shows a secret:\n%s", f, raw)
				}
			}
			log, _ := os.ReadFile(logs[0])
			e2e.Contains(t, "the history log", string(log), "my key is \n", "<promise></promise>")
			report, _ := os.ReadFile(filepath.Join(w.Dir, ".ralph", "reports", "report.json"))
			e2e.Contains(t, "the JSON report", string(report), `(got \u003cpromise\u003e\u003c/promise\u003e)`)
			junit, _ := os.ReadFile(filepath.Join(w.Dir, ".ralph", "reports", "junit.xml"))
			e2e.Contains(t, "the JUnit report", string(junit), "(got <promise></promise>)")
			if strings.Contains(e.String(), apiKey) || strings.Contains(o.String(), apiKey) {
				t.Errorf("ralph-ci's own output shows the agent's key")
			}
			// Nor do the pull request's comments and statuses, nor the job
			// summary: what ralph-ci publishes comes from masked text.
			comments, statuses := w.Srv.Snapshot()
			if len(comments) == 0 {
				t.Fatal("no checkpoint comment was posted")
			}
			var published strings.Builder
			for _, c := range comments {
				published.WriteString(c.Body)
			}
			for _, st := range statuses {
				published.WriteString(st.Description)
			}
			summary, _ := os.ReadFile(w.Summary)
			published.Write(summary)
			if strings.Contains(published.String(), apiKey) || strings.Contains(published.String(), token) {
				t.Errorf("a comment, a status or the job summary shows a secret:\n%s", published.String())
			}
		})
	}
}

// startDecoyJob starts a process standing for another job of the same
// user, whose GITHUB_ENV file lies in the test's own temporary folder
// (the only place the hunter writes), and returns that file's path. It
// is the hunt's control: the agent can reach another process's
// environment, just not ralph-ci's.
func startDecoyJob(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "decoy-github-env")
	// Without capabilities, as the boxed agent is (a root agent in the
	// box has none): another job's process of the same user without
	// privileges, the one the agent may reach. A decoy with root's
	// capabilities is out of a capability-less agent's reach (ptrace's
	// check wants the tracer's capabilities to cover the tracee's).
	cmd := exec.Command("sleep", "600")
	if os.Geteuid() == 0 {
		cmd = exec.Command("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", "sleep", "600")
	}
	cmd.Env = append(os.Environ(), "GITHUB_ENV="+file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return file
}
