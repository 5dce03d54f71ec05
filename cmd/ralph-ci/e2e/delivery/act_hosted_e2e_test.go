//go:build linux

package delivery

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// hostedAgent is the agent of the hosted-runner test: in its first
// iteration it notes its uid and tries, one line each in attack.txt (in
// the tree, so that the commit ralph-ci pushes carries what it found), to
// read the 0600 credential an earlier step of the job left in the runner
// user's HOME ($CRED_HOME) and in $RUNNER_TEMP, ralph-ci's environment
// (the shepherd's parent), to become root with sudo -n, to find the
// token actions/checkout persisted in .git/config, and to read the
// environment of any process not its own (act's, the runner's steps',
// ralph-ci's); then it claims the spec done.
const hostedAgent = `prompt=$(cat)
parent() { sed 's/.*) //' /proc/$1/stat | cut -d' ' -f2; }
try() { n=$1; shift; if got=$("$@" 2>&1); then echo "SUCCEEDED $n: $got" >> attack.txt; else echo "denied $n: $(printf '%s' "$got" | head -n 1)" >> attack.txt; fi; }
if [ ! -f attack.txt ]; then
  p=$$
  while [ "$p" -gt 1 ]; do
    if [ "$(tr '\0' '\n' < /proc/$p/cmdline | head -n 1)" = ralph-ci-shepherd ]; then break; fi
    p=$(parent $p)
  done
  echo "uid $(id -u)" >> attack.txt
  try home-credential cat "$CRED_HOME/credential"
  try temp-credential cat "$RUNNER_TEMP/credential"
  try environ cat /proc/$(parent $p)/environ
  try sudo sudo -n true
  try git-credential grep -ri authorization .git/config
  me=$(id -u) read= n=0
  for e in /proc/[0-9]*/environ; do
    if [ "$(stat -c %u "$e" 2>/dev/null)" != "$me" ]; then
      n=$((n + 1))
      if head -c 1 "$e" > /dev/null 2>&1; then read="$read $e"; fi
    fi
  done
  if [ -n "$read" ]; then echo "SUCCEEDED others-environ:$read" >> attack.txt; else echo "denied others-environ: none of the $n processes of other users it sees" >> attack.txt; fi
  echo "RALPH_STATUS: CONTINUE"
  exit 0
fi
printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// hostedWorkflow is the job of the hosted-runner test, as a user writes
// it: an earlier step leaves a credential (0600) in the runner's HOME and
// in $RUNNER_TEMP, the checkout, the Action's loop, and a later step that,
// as the runner user, lists what in the workspace, $RUNNER_TEMP and its
// HOME is not its own and which text files hold the job's token, rewrites and
// deletes the reports (the JUnit one in a new folder of $RUNNER_TEMP,
// outside the tree), and empties the
// workspace (as the next job's checkout does). @HOME@ and @SECRET@ are
// filled in by the test.
const hostedWorkflow = `name: hosted
on: pull_request
jobs:
  ralph:
    runs-on: ubuntu-latest
    steps:
      - name: A credential an earlier step left
        env: {SECRET: "@SECRET@"}
        run: |
          umask 077
          printf '%s\n' "$SECRET" > "$HOME/credential"
          printf '%s\n' "$SECRET" > "$RUNNER_TEMP/credential"
          echo "earlier step: uid $(id -u), HOME $HOME"
      - uses: actions/checkout@v4
      - name: Ralph loop
        id: ralph
        uses: ralph-ci/ralph-ci@v1
        with:
          command: run
          deliver: pr
          max-rotations: 5
          log-format: json
          junit: ${{ runner.temp }}/ralph-reports/deep/junit.xml
          json: .ralph/reports/report.json
        env:
          CRED_HOME: "@HOME@"
      - name: The runner's later step
        if: ${{ always() }}
        env:
          STATUS: ${{ steps.ralph.outputs.status }}
          EXIT_CODE: ${{ steps.ralph.outputs.exit-code }}
          VERIFIED: ${{ steps.ralph.outputs.verified }}
          TOKEN: ${{ secrets.GITHUB_TOKEN }}
        run: |
          echo "outputs: status=$STATUS exit-code=$EXIT_CODE verified=$VERIFIED"
          echo "later step: uid $(id -u) gid $(id -g)"
          others=$(find "$GITHUB_WORKSPACE" "$RUNNER_TEMP" "$HOME" \( ! -user "$(id -u)" -o ! -group "$(id -g)" \) -printf '%p (%u:%g)\n')
          echo "not the runner's: [$others]"
          echo "files with the token: [$(grep -rlIF "$TOKEN" "$GITHUB_WORKSPACE" "$RUNNER_TEMP" "$HOME" || true)]"
          junit=$RUNNER_TEMP/ralph-reports/deep/junit.xml
          test -s .ralph/reports/report.json && test -s "$junit"
          for f in .ralph/reports/report.json "$junit"; do echo rewritten > "$f"; rm "$f"; done
          rm -r "$RUNNER_TEMP/ralph-reports"
          find "$GITHUB_WORKSPACE" -mindepth 1 -delete
          echo "left in the workspace: [$(ls -A "$GITHUB_WORKSPACE")]"
`

// GitHub's ubuntu-latest as the job's steps get it, in a real Actions
// runner: act itself runs as a user the test creates (as the runner user
// `runner`: a HOME of its own, passwordless sudo through /etc/sudoers.d,
// the workspace under HOME/work/REPO/REPO its own, HOME /home/NAME, 0750), so every step, the
// Action's included, starts as that user. The Action's ralph-ci finds
// passwordless sudo and runs itself as root; the agent runs as a user of
// the agent pool: its uid is neither the runner's nor root's, it reads
// neither the 0600 credential an earlier step left in the runner's HOME
// and $RUNNER_TEMP nor ralph-ci's environment, and its `sudo -n true`
// fails. The loop verifies and the work (with what the agent found) is
// pushed to the pull request's branch; the step's outputs are set; after
// the step, nothing in the workspace, $RUNNER_TEMP (the job summary and
// output files) or the runner's HOME is anyone else's, and a later step as
// the runner rewrites and deletes the reports and empties the workspace.
func TestHostedRunnerSudoInAct(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creates a user: needs root")
	}
	for _, tool := range []string{"sudo", "useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/run installs sudo)", tool)
		}
	}
	specB := "specs/b.spec.md"
	w, r := newActWorld(t, "ralph-run.yml", map[string]string{specB: e2e.PRRepoFiles[specB], "agent.sh": hostedAgent})
	base, err := os.MkdirTemp("", "ralph-ci-hosted-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// The runner's HOME is /home/NAME, 0750 (useradd's on Ubuntu), as
	// /home/runner is: ralph-ci must let the agent's user reach the
	// workspace below it.
	home := fmt.Sprintf("/home/rchr%d", os.Getpid()%1000000)
	if _, err := os.Lstat(home); err == nil {
		t.Fatalf("%s is there already: a user of an earlier run left it", home)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	// As GitHub's runner user, its primary group is not a group of its
	// own (runner's is docker), and it has others (adm).
	group := fmt.Sprintf("rchrg%d", os.Getpid()%1000000)
	if out, err := exec.Command("groupadd", group).CombinedOutput(); err != nil {
		t.Fatalf("groupadd: %v: %s", err, out)
	}
	t.Cleanup(func() { // after userdel, which keeps the user's own group once it is not the primary one
		for _, g := range []string{group, filepath.Base(home)} {
			if _, err := user.LookupGroup(g); err != nil {
				continue
			}
			if out, err := exec.Command("groupdel", g).CombinedOutput(); err != nil {
				t.Errorf("groupdel %s: %v: %s", g, err, out)
			}
		}
	})
	u := e2e.NewUser(t, home, "rchr", true)
	if u.Home != home || filepath.Base(home) != u.Name {
		t.Fatalf("the user %s has HOME %s, want %s", u.Name, u.Home, home)
	}
	if out, err := exec.Command("usermod", "-g", group, "-G", "adm", u.Name).CombinedOutput(); err != nil {
		t.Fatalf("usermod: %v: %s", err, out)
	}
	gr, err := user.LookupGroup(group)
	if err != nil {
		t.Fatal(err)
	}
	u.Gid, _ = strconv.Atoi(gr.Gid)
	if err := os.Chmod(home, 0o750); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll("/var/tmp/ralph-ci-" + strconv.Itoa(u.UID)) })

	// act as the runner has it (root's GOPATH is root's alone), the
	// runner's HOME, its work folder, act's caches and what the
	// stand-ins upload are the runner's; the Action's copy is readable.
	act := filepath.Join(base, "bin", "act")
	e2e.CopyFile(t, r.act, act, 0o755)
	r.act, r.home, r.artifacts, r.events = act, u.Home, filepath.Join(base, "artifacts"), filepath.Join(base, "events")
	for _, d := range []string{r.artifacts, r.events} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(r.mappings); i += 2 {
		_, dir, _ := strings.Cut(r.mappings[i], "=")
		searchable(t, dir)
	}
	workspace := filepath.Join(u.Home, "work", "Hello-World", "Hello-World")
	if err := os.MkdirAll(filepath.Dir(workspace), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", w.PRJob(), workspace).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	secret := "runner-credential-" + strconv.Itoa(os.Getpid())
	wf := strings.NewReplacer("@HOME@", u.Home, "@SECRET@", secret).Replace(hostedWorkflow)
	e2e.WriteFile(t, filepath.Join(workspace, ".github", "workflows", "hosted.yml"), wf)
	for _, d := range []string{u.Home, r.artifacts, r.events} {
		e2e.ChownTree(t, d, u)
	}
	r.asUser = func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.Gid), Groups: []uint32{}}}
		cmd.Env = append(cmd.Env, "USER="+u.Name, "LOGNAME="+u.Name)
	}

	out := r.run("hosted.yml", "pull_request", r.payload("pull_request.opened.json"), workspace)
	t.Logf("act as %s (%d):\n%s", u.Name, u.UID, out)
	runner := strconv.Itoa(u.UID)
	e2e.Contains(t, "act as the runner user", out,
		"earlier step: uid "+runner+", HOME "+u.Home,
		"runs itself as root through passwordless sudo",
		"all specs verified",
		"Summary - ### ralph-ci run: 1 of 1 specs verified",
		"outputs: status=done exit-code=0 verified=1",
		"later step: uid "+runner+" gid "+strconv.Itoa(u.Gid),
		"not the runner's: []",
		"files with the token: []",
		"left in the workspace: []")

	// The search-only ACL entry ralph-ci gave the agent's user on the
	// runner's HOME is gone with the run.
	if _, err := syscall.Getxattr(home, "system.posix_acl_access", make([]byte, 256)); err != syscall.ENODATA {
		t.Errorf("the runner's HOME keeps an access ACL after the run (%v)", err)
	}
	name, uid := e2e.AgentUserOf([]byte(actLog(out)))
	if !agentuser.InPool(name) || uid == u.UID || uid == 0 {
		t.Fatalf("the log names agent user %q (%d), want one of the pool, neither the runner (%d) nor root", name, uid, u.UID)
	}
	attack := ghorigin.Git(t, w.Bare, "show", "refs/heads/changes:attack.txt")
	t.Logf("the agent (%s, uid %d) found, as pushed to the pull request's branch:\n%s", name, uid, attack)
	if !strings.Contains(attack, "uid "+strconv.Itoa(uid)+"\n") {
		t.Errorf("the agent was not uid %d (%s):\n%s", uid, name, attack)
	}
	for _, a := range []string{"home-credential", "temp-credential", "environ", "sudo", "git-credential", "others-environ"} {
		if !strings.Contains(attack, "denied "+a+": ") {
			t.Errorf("attempt %s was not denied:\n%s", a, attack)
		}
	}
	for _, a := range []string{"home-credential", "temp-credential", "environ"} {
		if !strings.Contains(attack, "denied "+a+": ") || !strings.Contains(lineOf(attack, "denied "+a+": "), "ermission denied") {
			t.Errorf("attempt %s failed, but not by uid:\n%s", a, attack)
		}
	}
	if strings.Contains(attack, secret) || strings.Contains(attack, "test-token") {
		t.Errorf("the agent read the credential or the token:\n%s", attack)
	}
}

// actLog is out's JSON log lines, without act's prefix ("[job] | ").
func actLog(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "| {"); i >= 0 {
			b.WriteString(l[i+2:] + "\n")
		}
	}
	return b.String()
}

// lineOf is the line of s that holds sub.
func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// searchable lets every user read p and search the folders above it that
// the test made in the temporary folder (root's, 0700).
func searchable(t *testing.T, p string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	if !strings.HasPrefix(p, tmp+"/") {
		return
	}
	if out, err := exec.Command("chmod", "-R", "a+rX", p).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v: %s", err, out)
	}
	for dir := filepath.Dir(p); strings.HasPrefix(dir, tmp+"/"); dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
}
