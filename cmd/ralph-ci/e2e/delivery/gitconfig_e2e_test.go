package delivery

import (
	"context"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// gitConfigMarker is the secret the job hands git through the
// environment in TestAgentHoldsNoGitConfigCredential.
const gitConfigMarker = "ghs_GitConfigMarker7q3ZxW9"

// dumpSh prints what a process holds: its environment (as the shell has
// it and as the kernel has it), the git configuration git reads, and the
// safe.directory entries.
const dumpSh = `dump() {
  echo "== env"; env
  echo "== git config --list"; git config --list --show-origin
  echo "== /proc/self/environ"; tr '\0' '\n' < /proc/self/environ
  echo "== safe.directory"; git config --get-all safe.directory
}
`

// gitConfigAgent dumps what it holds into its output, into a file of
// the test's and into the work tree (which ralph-ci delivers to origin),
// then claims the spec done.
const gitConfigAgent = dumpSh + `cat > /dev/null
dump > "$OUT/agent-$RALPH_ITERATION" 2>&1
cat "$OUT/agent-$RALPH_ITERATION"
cp "$OUT/agent-$RALPH_ITERATION" dump.txt
echo finished > work.txt
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestAgentHoldsNoGitConfigCredential: a job hands git a credential
// through the environment, as workflows do to reach private submodules:
// an extraheader for origin's server with a token in GIT_CONFIG_COUNT's
// pairs, or (GIT_CONFIG_PARAMETERS, `git -c`'s form) that and a
// url.insteadOf whose URL holds the token, each beside a safe.directory
// pair. In a pull request's job delivering to an HTTP origin that asks
// for the job's token, the agent and the verification command dump their
// environment, /proc/self/environ and `git config --list` into their
// output, a file and the work tree: the token is nowhere (their dumps,
// the job's log and outputs, the work tree's reports and history,
// origin's commits, what reached origin), the safe.directory pair still
// reaches both, the log names each withheld key once (its URL's
// user information hidden), and ralph-ci's own fetch and push deliver
// with the job's token.
func TestAgentHoldsNoGitConfigCredential(t *testing.T) {
	bin := e2e.RalphBinary(t)
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["agent.sh"] = gitConfigAgent
	files["check.sh"] = dumpSh + `dump > "$OUT/verify" 2>&1
cat "$OUT/verify"
grep -q finished work.txt
`
	files["specs/a.spec.md"] = "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
		"  coder:\n    promise: IMPLEMENTATION_COMPLETE\n    description: finished\n    verification_method: external\n" +
		"    verification_config: {command: sh check.sh, timeout: 60}\n---\n# A\n"
	for _, tc := range []struct {
		name string
		// env is the job's git configuration for origin's server.
		env func(server string) []string
		// safe is the safe.directory entry the job hands; withheld the
		// keys the log names.
		safe     string
		withheld func(server string) []string
	}{
		{"GIT_CONFIG_COUNT", func(server string) []string {
			return []string{"GIT_CONFIG_COUNT=2",
				"GIT_CONFIG_KEY_0=http." + server + "/.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: bearer " + gitConfigMarker,
				"GIT_CONFIG_KEY_1=safe.directory", "GIT_CONFIG_VALUE_1=/gitcfg-safe-count"}
		}, "/gitcfg-safe-count", func(server string) []string { return []string{"http." + server + "/.extraheader"} }},
		{"GIT_CONFIG_PARAMETERS", func(server string) []string {
			userinfo := strings.Replace(server, "://", "://x-access-token:"+gitConfigMarker+"@", 1)
			return []string{"GIT_CONFIG_PARAMETERS='http." + server + "/.extraHeader'='AUTHORIZATION: bearer " + gitConfigMarker + "' " +
				"'safe.directory'='/gitcfg-safe-params' 'url." + userinfo + "/.insteadOf'='" + server + "/'"}
		}, "/gitcfg-safe-params", func(server string) []string {
			return []string{"http." + server + "/.extraHeader", "url." + strings.Replace(server, "://", "://***@", 1) + "/.insteadOf"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := e2e.AgentDir(t)
			w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
			var mu sync.Mutex
			var headers []string // every header of every request that reached origin
			w.OnRequest = func(r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				for k, v := range r.Header {
					headers = append(headers, k+": "+strings.Join(v, ", "))
				}
				headers = append(headers, r.URL.String())
			}
			w.ExtraEnv = append(w.ExtraEnv, "OUT="+out)
			w.ExtraEnv = append(w.ExtraEnv, tc.env(w.ServerURL)...)
			w.Job("", "")
			start := w.Rev("refs/heads/changes")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "2")
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Fatalf("run: %v (exit %d), want exit 3 (the rotation limit)\n%s\n%s", err, code, stdout, stderr)
			}

			// The agent and the verification command ran, with the
			// job's safe.directory and without the token.
			for _, name := range []string{"agent-1", "agent-2", "verify"} {
				dump, err := os.ReadFile(filepath.Join(out, name))
				if err != nil {
					t.Fatalf("no dump of %s: %v", name, err)
				}
				if strings.Contains(string(dump), gitConfigMarker) {
					t.Errorf("%s holds the job's git credential:\n%s", name, dump)
				}
				if _, safe, _ := strings.Cut(string(dump), "== safe.directory\n"); !strings.Contains(safe, tc.safe+"\n") {
					t.Errorf("%s lacks the job's safe.directory %s:\n%s", name, tc.safe, dump)
				}
			}
			// Nowhere in the job's log, outputs and summary, nor in the
			// work tree (its reports, history and state).
			for what, text := range map[string]string{"stdout": stdout.String(), "the log": stderr.String(), "outputs": readAll(t, w.Output), "summary": readAll(t, w.Summary)} {
				if strings.Contains(text, gitConfigMarker) {
					t.Errorf("%s holds the job's git credential:\n%s", what, text)
				}
			}
			if !strings.Contains(stdout.String(), "== git config --list") {
				t.Errorf("the agent's output did not reach the log:\n%s", stdout)
			}
			if found := filesHolding(t, w.Dir, gitConfigMarker); len(found) > 0 {
				t.Errorf("the work tree's files hold the job's git credential: %q", found)
			}
			// Nothing carrying it reached origin: its commits and every
			// request's headers; ralph-ci's own push delivered the work.
			if w.Rev("refs/heads/changes") == start {
				t.Errorf("nothing was delivered:\n%s", stderr)
			}
			if dump, err := exec.Command("git", "-C", w.Bare, "show", "refs/heads/changes:dump.txt").Output(); err != nil || !strings.Contains(string(dump), "== git config --list") {
				t.Errorf("the agent's dump was not delivered (%v):\n%s", err, dump)
			}
			if log, err := exec.Command("git", "-C", w.Bare, "log", "--all", "-p").CombinedOutput(); err != nil || strings.Contains(string(log), gitConfigMarker) {
				t.Errorf("origin's commits hold the job's git credential (%v)", err)
			}
			mu.Lock()
			if all := strings.Join(headers, "\n"); strings.Contains(all, gitConfigMarker) {
				t.Errorf("a request to origin carried the job's git credential:\n%s", all)
			}
			mu.Unlock()
			for _, pass := range w.SentWith {
				if pass != "test-token" {
					t.Errorf("a request to origin came with %q, not the job's token", pass)
				}
			}
			// The log names each withheld key once, never its value.
			lines := strings.Split(stderr.String(), "\n")
			for _, key := range tc.withheld(w.ServerURL) {
				n := 0
				for _, l := range lines {
					if strings.Contains(l, "git: a configuration pair") && strings.Contains(l, `"key":"`+key+`"`) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("the log names %s %d times, want once:\n%s", key, n, stderr)
				}
			}
		})
	}
}

// readAll is the content of file, "" when there is none.
func readAll(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// filesHolding lists the files under dir whose content holds s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
