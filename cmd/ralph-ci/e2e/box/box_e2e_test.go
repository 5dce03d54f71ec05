//go:build linux

package box

import (
	"bytes"
	"context"
	"encoding/base64"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/box"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
	"github.com/ralph-ci/ralph-ci/internal/procs"
)

// The agent escapes its shepherd and hunts for the job's token. In the
// simulated pull_request job of the delivery tests (--deliver pr, an HTTP
// origin that requires the token, so ralph-ci's fetches and pushes carry
// it), a process the agent starts, or one a test of the verification
// command starts, reads the environment of every process on the machine
// (/proc/*/environ, where the survivor of the measured attack found
// ralph-ci's git push and its GIT_CONFIG_* pair) as long as it lives.
// Each class runs several times. The box (a cgroup per process, emptied
// with cgroup.kill before ralph-ci goes on) leaves it no instant: the
// token is never seen, no process of the attack outlives the run, and the
// log names what the box killed.

// stealSh reads every environment on the machine, again and again; its
// first line notes its pid.
const stealSh = `echo $$ >> "$OUT/pids"
while :; do
  sh "$OUT/look.sh"
  sleep 0.02
done
`

// lookSh looks once: every environment holding the token, or the header
// ralph-ci's git sends it in, of a process of this run (its work tree,
// the checkout, appears in it: other tests on the machine use the same
// token).
const lookSh = `for f in $(grep -alE "test-token|$HEADER_A$HEADER_B" /proc/[0-9]*/environ 2>/dev/null); do
  if grep -aq "$WORK" "$f" 2>/dev/null; then tr '\0' ' ' < "$f" >> "$OUT/stolen"; echo >> "$OUT/stolen"; fi
done
`

// killShepherd kills the nearest ancestor that is a shepherd (argv[0]
// ralph-ci-shepherd), with SIGKILL, as the process of the agent's user
// that it is.
const killShepherd = `p=$$
while [ "$p" -gt 1 ]; do
  if [ "$(tr '\0' '\n' < /proc/$p/cmdline | head -n 1)" = ralph-ci-shepherd ]; then echo "killed shepherd $p" >> "$OUT/log"; kill -9 $p; break; fi
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
`

// waitSteal waits until the stealer noted its pid.
const waitSteal = `until [ -s "$OUT/pids" ]; do sleep 0.01; done
`

// escape is a class of escape: shell run by the agent (or by the test the
// verification command runs), in the checkout, with $OUT a folder of the
// test's.
type escape struct{ name, where, script string }

// escapesKilling are the classes that every box must hold, each ending
// with kill, the script that kills its shepherd.
func escapesKilling(kill string) []escape {
	return []escape{
		{"setsid, then kill -9 of the shepherd, from the agent", "agent",
			`setsid sh "$OUT/steal.sh" < /dev/null > /dev/null 2>&1 &
` + waitSteal + kill},
		{"setsid, then kill -9 of the shepherd, from a test of the verification command", "verify",
			`setsid sh "$OUT/steal.sh" < /dev/null > /dev/null 2>&1 &
` + waitSteal + kill},
		{"16 fork-chasing chains, then kill -9 of the shepherd", "agent",
			`for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do setsid sh "$OUT/chase.sh" < /dev/null > /dev/null 2>&1 & done
until [ -f "$OUT/chased" ] && [ "$(wc -l < "$OUT/chased")" -gt 64 ]; do sleep 0.01; done
` + kill},
		{"a double fork that re-parents itself, then kills the shepherd", "agent",
			`( setsid sh -c 'sh "$OUT/steal.sh" & ` + strings.ReplaceAll(waitSteal+kill, "'", `'"'"'`) + `wait' < /dev/null > /dev/null 2>&1 & )
until grep -q "killed shepherd" "$OUT/log" 2>/dev/null; do sleep 0.01; done
`},
	}
}

// escapes are the cgroup box's classes: every box's, and a process that
// moves itself out of its cgroup.
var escapes = append(escapesKilling(killShepherd),
	escape{"a process that moves itself out of the box, then kill -9 of the shepherd", "agent", moveOut + waitSteal + killShepherd})

// moveOut is a process that tries to leave the box: it writes its pid
// into cgroup.procs of the cgroup2 mount's root and of every cgroup
// between (as root, ralph-ci's user here, it owns those files), and reads
// ralph-ci's memory map (the shepherd's parent), then reads environments.
const moveOut = `setsid sh -c '
M=$(grep " - cgroup2 " /proc/self/mountinfo | head -n 1 | cut -d" " -f5)
C=$(sed -n "s/^0:://p" /proc/self/cgroup)
for c in "$M" "$M/$(echo "$C" | cut -d/ -f2)"; do
  if echo $$ > "$c/cgroup.procs" 2>> "$OUT/log"; then echo "moved to $c" >> "$OUT/log"; fi
done
p=$$
while [ "$p" -gt 1 ]; do
  if [ "$(tr "\0" "\n" < /proc/$p/cmdline | head -n 1)" = ralph-ci-shepherd ]; then break; fi
  p=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f2)
done
R=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f2)
head -c 200 /proc/$R/maps >> "$OUT/maps" 2>> "$OUT/log"
exec sh "$OUT/steal.sh"' < /dev/null > /dev/null 2>&1 &
`

// chaseSh is one link of a fork-chasing chain: it looks, starts the next
// link and exits, so that its pid never stays.
const chaseSh = `echo $$ >> "$OUT/chased"
sh "$OUT/chase.sh" < /dev/null > /dev/null 2>&1 &
exec sh "$OUT/look.sh"
`

// escapeAgent runs $OUT/escape.sh in its first rotation when $WHERE is
// agent, writes the work and the helper the verification's test runs,
// and claims DONE in every rotation.
const escapeAgent = `cat > /dev/null
if [ "$RALPH_ITERATION" = 1 ]; then
  echo finished > work.txt
  if [ "$WHERE" = verify ]; then cp "$OUT/escape.sh" helper.sh; else echo true > helper.sh; fi
  if [ "$WHERE" = agent ]; then sh "$OUT/escape.sh"; fi
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// escapeFiles are the pull request's files: a spec verified by a test
// (check.sh) that runs the agent's helper.sh.
func escapeFiles() map[string]string {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] += "specs: {default_tier: auto}\n"
	files["agent.sh"] = escapeAgent
	files["check.sh"] = "sh ./helper.sh\ngrep -q finished work.txt\n"
	files["specs/a.spec.md"] = "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
		"  coder:\n    promise: IMPLEMENTATION_COMPLETE\n    description: finished\n    verification_method: external\n" +
		"    verification_config: {command: sh check.sh, timeout: 60}\n---\n# A\n"
	return files
}

func TestBoxKeepsEscapesFromTheToken(t *testing.T) {
	if _, err := box.Open(box.Cgroup, ""); err != nil {
		t.Skipf("no writable cgroup here: %v", err)
	}
	bin := e2e.RalphBinary(t)
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:test-token"))
	const runs = 2
	for _, e := range escapes {
		for run := 1; run <= runs; run++ {
			t.Run(e.name+"/"+strconv.Itoa(run), func(t *testing.T) {
				out := agentDir(t) // the agent writes there, as its own user where ralph-ci is root
				for name, body := range map[string]string{"escape.sh": e.script, "steal.sh": stealSh, "chase.sh": chaseSh, "look.sh": lookSh} {
					if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				w := e2e.NewCIWorld(t, bin, escapeFiles(), e2e.HTTPOrigin)
				// The header in two halves: the stealer's own environment
				// must not match.
				w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "WHERE="+e.where, "HEADER_A="+header[:10], "HEADER_B="+header[10:])
				w.Job("", "")
				w.ExtraEnv = append(w.ExtraEnv, "WORK="+w.Dir)
				ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
				defer cancel()
				cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3")
				cmd.Env = tokenInFile(t, cmd.Env)
				_ = cmd.Run()
				left := processesNaming(out)
				for _, pid := range left {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
				log, _ := os.ReadFile(filepath.Join(out, "log"))
				t.Logf("exit %d; the attack said: %s", cmd.ProcessState.ExitCode(), log)
				if stolen, _ := os.ReadFile(filepath.Join(out, "stolen")); len(stolen) > 0 {
					t.Errorf("the escaped process read the token:\n%s", stolen)
				}
				if len(left) > 0 {
					t.Errorf("processes of the attack outlived the run: %v", left)
				}
				if maps, _ := os.ReadFile(filepath.Join(out, "maps")); len(maps) > 0 {
					t.Errorf("the escaped process read ralph-ci's memory map:\n%s", maps)
				}
				if strings.Contains(string(log), "moved to") {
					t.Errorf("a process left the box: %s", log)
				}
				if !strings.Contains(stderr.String(), "box: killed the processes that outlived their command") {
					t.Errorf("the log names no process the box killed:\n%s\n%s", stdout, stderr)
				}
				if !strings.HasPrefix(e.name, "16 fork-chasing chains") { // the chains' pids change as they run
					pids, _ := os.ReadFile(filepath.Join(out, "pids"))
					for _, pid := range strings.Fields(string(pids)) {
						if !strings.Contains(stderr.String(), pid+" (") {
							t.Errorf("the log does not name the stealer %s:\n%s", pid, stderr)
						}
					}
				}
				if !strings.Contains(string(log), "killed shepherd") {
					t.Errorf("the attack did not run (no shepherd killed)")
				}
			})
		}
	}
}

// tokenInFile hands ralph-ci the token as the Action does (a 0600 file
// it reads and deletes) instead of GITHUB_TOKEN: no environment of
// ralph-ci holds it then, only those of its git commands that use it.
func tokenInFile(t *testing.T, env []string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("test-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := []string{"RALPH_TOKEN_FILE=" + file}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GITHUB_TOKEN=") {
			out = append(out, kv)
		}
	}
	return out
}

// processesNaming lists the processes whose command line names dir.
func processesNaming(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(cmdline, []byte(dir)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// tamperSh waits for the third verification to end, then rewrites the
// verified file again and again for two seconds.
const tamperSh = `echo $$ >> "$OUT/pids"
until [ -f "$OUT/verified" ] && [ "$(wc -l < "$OUT/verified")" -ge 3 ]; do sleep 0.005; done
echo "writing after verification 3" >> "$OUT/log"
end=$(($(date +%s) + 2))
while [ "$(date +%s)" -lt "$end" ]; do echo tampered > work.txt; done
echo "wrote after verification 3" >> "$OUT/log"
`

// A survivor's write after the last verification: the agent's first
// rotation writes the work and leaves a process that kills its shepherd
// and, once the third verification has ended, rewrites the verified file
// while ralph-ci judges, commits and pushes. The commit pushed holds the
// tree that was verified. With the box the survivor dies with the first
// rotation (and the log names it); without (--box off) it lives and
// writes, and still only the verified tree is committed: ralph-ci records
// the tree before the verification runs and commits it by id. Where
// ralph-ci is root, the run without a box names a user made for the test:
// the survivor of a pool user dies when another run takes that user.
func TestSurvivorsWriteAfterVerificationIsNotCommitted(t *testing.T) {
	bin := e2e.RalphBinary(t)
	for _, mode := range []string{"cgroup", "off"} {
		t.Run("box "+mode, func(t *testing.T) {
			if _, err := box.Open(box.Cgroup, ""); err != nil && mode == "cgroup" {
				t.Skipf("no writable cgroup here: %v", err)
			}
			out := agentDir(t) // the agent writes there, as its own user where ralph-ci is root
			escape := `setsid sh "$OUT/tamper.sh" < /dev/null > /dev/null 2>&1 &
` + waitSteal + killShepherd
			for name, body := range map[string]string{"escape.sh": escape, "tamper.sh": tamperSh} {
				if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			files := escapeFiles()
			files["check.sh"] = "grep -q finished work.txt && echo >> \"$OUT/verified\"\n"
			if mode == "off" && os.Geteuid() == 0 {
				// The survivor must outlive the run, and a user of the
				// pool is not the run's once it ends: the next run on the
				// machine (another test's) to take it kills every process
				// of its uid, the survivor with them. A user of the
				// test's own is no other run's to clean.
				name := "rcsurvivor-" + strconv.Itoa(os.Getpid())
				makeUser(t, name)
				files["ralph.yaml"] += "box: {user: " + name + "}\n"
			}
			w := e2e.NewCIWorld(t, bin, files, e2e.HTTPOrigin)
			w.ExtraEnv = append(w.ExtraEnv, "OUT="+out, "WHERE=agent")
			w.Job("", "")
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd, stdout, stderr := w.Command(ctx, "--log-format", "json", "run", "--box", mode, "--deliver", "pr", "--max-rotations", "4")
			_ = cmd.Run()
			if mode == "off" { // the survivor writes until it is done
				for _, pid := range processesNaming(out) {
					for procs.Running(pid) && ctx.Err() == nil {
						time.Sleep(20 * time.Millisecond)
					}
				}
			}
			for _, pid := range processesNaming(out) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			log, _ := os.ReadFile(filepath.Join(out, "log"))
			verified, _ := os.ReadFile(filepath.Join(out, "verified"))
			t.Logf("exit %d; %d verifications; the attack said: %s", cmd.ProcessState.ExitCode(), strings.Count(string(verified), "\n"), log)
			if !strings.Contains(string(log), "killed shepherd") {
				t.Fatalf("the attack did not run:\n%s\n%s", stdout, stderr)
			}
			if strings.Count(string(verified), "\n") < 3 {
				t.Fatalf("fewer than 3 verifications:\n%s\n%s", stdout, stderr)
			}
			committed := ghorigin.Git(t, w.Bare, "show", "refs/heads/changes:work.txt")
			if strings.TrimSpace(committed) != "finished" {
				t.Errorf("the pushed work.txt is %q, not the verified %q\n%s", committed, "finished", stderr)
			}
			switch mode {
			case "off":
				if !strings.Contains(string(log), "wrote after verification 3") {
					t.Errorf("without a box the survivor should have written after the last verification:\n%s", log)
				}
			default:
				if strings.Contains(string(log), "writing after verification") {
					t.Errorf("the survivor outlived its rotation:\n%s", log)
				}
				if !strings.Contains(stderr.String(), "box: killed the processes that outlived their command") {
					t.Errorf("the log names no process the box killed:\n%s", stderr)
				}
			}
		})
	}
}
