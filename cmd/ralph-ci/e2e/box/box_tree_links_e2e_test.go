//go:build linux

package box

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// treeLinkAgent is the agent of a ralph-ci that is root (run as root, or
// through sudo), as a user of its own. Every prompt it gets goes to
// $OUT. In its first rotation it does the work and replaces the file of
// the tree that $READER names by a link to $SECRET, a 0600 file of
// root's it cannot read itself: root's ralph-ci, reading that file, would
// read the secret for it, into a prompt, a log, a report or a commit.
const treeLinkAgent = `cat > "$OUT/prompt-$RALPH_ITERATION-$$"
if [ "$RALPH_ITERATION" = 1 ]; then
  echo finished > work.txt
  echo true > helper.sh
  plant() { rm -f "$1" && ln -s "$SECRET" "$1" && echo "$1" >> "$OUT/planted"; }
  case "$READER" in
  spec) plant specs/a.spec.md ;;
  discovery) plant PROMPT.md ;;
  source) plant notes.sh ;;
  guard) plant check.sh ;;
  config) plant ralph.yaml ;;
  package.json) plant package.json ;;
  git) plant .git/HEAD ;;
  report) printf 'ln -s "%s" report.xml && echo report.xml >> "$OUT/planted"\n' "$SECRET" > helper.sh ;;
  esac 2>> "$OUT/err"
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// A reader is one of ralph-ci's reads of a work-tree file that the agent
// links out of the tree: the repository's files for it, the secret
// (holding the marker) shaped so that what ralph-ci does with the file
// would show it, and what the log says once the read is refused.
type reader struct {
	name   string
	files  func(map[string]string)
	secret string // with MARKER for the marker
	refuse string // the path the log names as leading out of the tree
	// twice runs ralph-ci a second time in the same checkout (the next
	// run of a job: the config is loaded once a run), as root only: a
	// user with sudo looks for the config before it runs itself as root,
	// and finds none it can read (the link's target is root's).
	twice bool
	// shows is log text that only reading the secret produces (for a
	// reader that acts on the file without quoting it).
	shows string
}

// treeConfig is ralph.yaml of these runs, with extra agents and layers.
func treeConfig(agents, more string) string {
	return "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" + agents +
		"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\n" +
		"github: {approvers: [carol]}\nspecs: {default_tier: auto}\n" + more
}

// specWith is the spec of these runs with verification, a
// coder stage's verification config.
func specWith(method, config string) string {
	return "---\ncompletion:\n  outcome: the work is finished\n  acceptance_criteria: [work.txt says finished]\n" +
		"  coder:\n    promise: IMPLEMENTATION_COMPLETE\n    description: finished\n    verification_method: " + method + "\n" +
		"    verification_config: " + config + "\n---\n# A\n"
}

// verified is the verification config of a spec whose files the agent
// may change (so the claim goes on to what reads them).
const verified = "{command: sh check.sh, timeout: 60, allow_verifier_changes: true}"

var treeReaders = []reader{
	{name: "spec", refuse: "specs/a.spec.md",
		// The reviewer reads the spec after the coder's rotation, before
		// the next scan drops a spec that is no regular file. The secret
		// keeps the spec's front matter, which the verifier guard holds.
		files: func(f map[string]string) {
			f["ralph.yaml"] = treeConfig("  reviewer: {command: [sh, review.sh], timeout: 1m}\n", "layers: {review: {every: 1}}\n")
			f["review.sh"] = "cat > \"$OUT/review-$$\"\necho REVIEW_PASS\n"
			f["specs/a.spec.md"] = specWith("external", verified)
		},
		secret: strings.Replace(specWith("external", verified), "# A\n", "# MARKER\n", 1)},
	{name: "discovery", refuse: "PROMPT.md",
		// PROMPT.md is found by a stat that followed links, then read.
		files: func(f map[string]string) {
			f["PROMPT.md"] = "# Work\nWrite finished into work.txt.\n"
		},
		secret: "---\nMARKER: 1\n---\n# MARKER\n"},
	{name: "source", refuse: "notes.sh",
		// The loop's new files are scanned for unfinished work.
		secret: "# TODO MARKER\n", shows: "notes.sh: TODO"},
	{name: "guard", refuse: "check.sh",
		// The verifier guard reads the verification script to hash it.
		secret: "MARKER\n"},
	{name: "config", refuse: "ralph.yaml", twice: true,
		secret: "MARKER: 1\n"},
	{name: "package.json", refuse: "package.json",
		// npm test: the script's body tells which runner's report to read.
		files: func(f map[string]string) {
			f["package.json"] = `{"scripts": {"test": "sh check.sh"}}` + "\n"
			f["specs/a.spec.md"] = specWith("external", strings.Replace(verified, "sh check.sh", "npm test", 1))
		},
		secret: `{"scripts": {"test": "jest --MARKER"}}` + "\n", shows: `"runner":"jest"`},
	{name: "report", refuse: "report.xml",
		// A test the verification runs (the agent's helper.sh) makes its
		// report a link; the tests that pass are kept in the state.
		files: func(f map[string]string) {
			f["specs/a.spec.md"] = specWith("external", "{command: sh check.sh, timeout: 60, test_report: report.xml}")
		},
		secret: `<testsuite name="s" tests="1"><testcase classname="MARKER" name="MARKER"/></testsuite>` + "\n"},
	{name: "git", refuse: ".git/HEAD",
		// ralph-ci reads the checkout's HEAD after each rotation, to tell
		// the git state the agent left.
		secret: "ref: refs/heads/MARKER\n"},
}

// TestRootReadsNoTreeFileTheAgentLinkedOut: ralph-ci as root (run as
// root, or by a user with passwordless sudo: it runs itself as root
// through sudo), the agent as a user of its own. In its first rotation
// the agent replaces a file of the tree that ralph-ci reads (a spec, the
// PROMPT.md discovery finds, a new source file, the verification script
// the guard hashes, the config, package.json, the test report a test
// wrote, the checkout's .git/HEAD) by a link to a root-only file the test made, holding a marker.
// The marker (or its hash) is in no prompt any agent got, no log, no
// file of the checkout (reports, notes, the state) and no commit of the
// origin; the log names the file whose link leads out of the tree.
//
// On main at a89cc68 each got through, as root and through sudo
// (safefile.Read follows links): the spec's marker reached the
// reviewer's prompt; PROMPT.md's the log (its front matter's problems);
// the guard's hash of the script, the config's problems and the report's
// test names the state, pushed to the origin; .git/HEAD's target the
// next prompts, the log, the handoff, the reports and the origin (as the
// branch the agent left); the new file's content
// decided the unfinished-work verdict, package.json's which runner's
// report ralph-ci read.
func TestRootReadsNoTreeFileTheAgentLinkedOut(t *testing.T) {
	for _, r := range treeReaders {
		for _, how := range []string{"root", "sudo"} {
			if r.twice && how == "sudo" {
				continue
			}
			t.Run(r.name+"/"+how, func(t *testing.T) {
				marker := fmt.Sprintf("ralph-secret-%s-%d", strings.ReplaceAll(r.name, ".", ""), os.Getpid())
				files := maps.Clone(escapeFiles())
				files["agent.sh"] = treeLinkAgent
				files["ralph.yaml"] = treeConfig("", "")
				files["check.sh"] = "sh ./helper.sh\ngrep -q finished work.txt\n"
				if r.files != nil {
					r.files(files)
				}
				run := newTreeRun(t, how, files)
				secret := filepath.Join(run.private, "secret")
				content := strings.ReplaceAll(r.secret, "MARKER", marker)
				if err := os.WriteFile(secret, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				env := []string{"OUT=" + run.out, "SECRET=" + secret, "READER=" + r.name}
				args := []string{"--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3"}
				log, code := run.ralph(t, env, args...)
				if r.twice {
					more, code2 := run.ralph(t, env, args...)
					log += more
					code = code2
				}
				planted, _ := os.ReadFile(filepath.Join(run.out, "planted"))
				t.Logf("exit %d; planted: %s", code, planted)
				if len(planted) == 0 {
					errs, _ := os.ReadFile(filepath.Join(run.out, "err"))
					t.Fatalf("the attack did not run as planned:\n%s\n%s", errs, log)
				}
				needles := []string{marker, sha256Hex(content)}
				for _, where := range run.leaks(t, log, needles) {
					t.Errorf("root's ralph-ci read the file the agent linked %s to: the marker (or its hash) is in %s", r.refuse, where)
				}
				if r.shows != "" && strings.Contains(log, r.shows) {
					t.Errorf("ralph-ci acted on the secret the agent linked %s to: the log has %s", r.refuse, r.shows)
				}
				if n := strings.Count(log, "ralph-ci skipped it"); r.name == "source" && n != 1 {
					t.Errorf("the log says %d times that the scan skipped %s, not once:\n%s", n, r.refuse, log)
				}
				if !strings.Contains(log, r.refuse) || !strings.Contains(log, "leads out of the work tree") {
					t.Errorf("the log does not name %s as a link that leads out of the work tree:\n%s", r.refuse, log)
				}
			})
		}
	}
}

// treeRun is a pull request's CI job where ralph-ci is root: run as root
// ("root"), or by a user with passwordless sudo ("sudo").
type treeRun struct {
	w       *e2e.CIWorld
	sudo    *sudoRootWorld
	out     string // the agent's folder
	private string // a folder of root's only
}

func newTreeRun(t *testing.T, how string, files map[string]string) *treeRun {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("ralph-ci as root only")
	}
	run := &treeRun{out: agentDir(t), private: t.TempDir()}
	if err := os.Chmod(run.private, 0o700); err != nil {
		t.Fatal(err)
	}
	if how == "sudo" {
		run.sudo = newSudoRootWorld(t, "rctl", true, files)
		run.w = run.sudo.CIWorld
		return run
	}
	run.w = e2e.NewCIWorld(t, e2e.RalphBinary(t), files, e2e.HTTPOrigin)
	run.w.Job("", "")
	return run
}

// ralph runs ralph-ci args with extra environment; it returns the log
// (stdout and stderr) and the exit code.
func (r *treeRun) ralph(t *testing.T, extra []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	var log fmt.Stringer
	if r.sudo != nil {
		c, l := r.sudo.command(t, ctx, extra, args...)
		cmd, log = c, l
	} else {
		c, stdout, _ := r.w.Command(ctx, args...)
		c.Env = append(tokenInFile(t, c.Env), extra...)
		c.Stderr = stdout // one log, in order
		cmd, log = c, stdout
	}
	_ = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ralph-ci hung:\n%s", log)
	}
	if r.sudo != nil && !strings.Contains(log.String(), "runs itself as root through passwordless sudo") {
		t.Fatalf("ralph-ci did not run itself as root:\n%s", log)
	}
	return log.String(), cmd.ProcessState.ExitCode()
}

// leaks names where any of needles is: the agents' prompts (every file
// of the agent's folder), the log, the checkout's regular files (the
// reports, notes and state in .ralph/ too), and the origin's commits.
func (r *treeRun) leaks(t *testing.T, log string, needles []string) []string {
	t.Helper()
	var found []string
	has := func(where, text string) {
		for _, n := range needles {
			if strings.Contains(text, n) {
				found = append(found, where)
				return
			}
		}
	}
	has("the log", log)
	for _, top := range []string{r.out, r.w.Dir} {
		_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || strings.Contains(p, "/.git/") {
				return nil
			}
			b, _ := os.ReadFile(p)
			has(p, string(b))
			return nil
		})
	}
	origin, err := exec.Command("git", "-C", r.w.Bare, "log", "--all", "-p", "--format=%H %s").CombinedOutput()
	if err != nil {
		t.Fatalf("git log of the origin: %v\n%s", err, origin)
	}
	has("a commit of the origin", string(origin))
	return found
}

// sha256Hex is the hex SHA-256 of s, as the verifier guard records a
// file.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestRootReadsAnInTreeLink: a link that stays inside the tree is read,
// as a checkout may hold one: PROMPT.md, a link to docs/prompt.md, is
// the work the agent gets (discovery, the prompt), with ralph-ci root
// and the agent a user of its own.
func TestRootReadsAnInTreeLink(t *testing.T) {
	files := maps.Clone(escapeFiles())
	delete(files, "specs/a.spec.md")
	files["agent.sh"] = treeLinkAgent
	files["check.sh"] = "grep -q finished work.txt\n"
	files["docs/prompt.md"] = "# Work\nWrite finished into work.txt (honest-in-tree-link).\n"
	run := newTreeRun(t, "root", files)
	if err := os.Symlink("docs/prompt.md", filepath.Join(run.w.Dir, "PROMPT.md")); err != nil {
		t.Fatal(err)
	}
	log, code := run.ralph(t, []string{"OUT=" + run.out, "READER=none"}, "--log-format", "json", "run", "--max-rotations", "1")
	prompt, _ := os.ReadFile(filepath.Join(run.out, "prompt-1-"+firstPID(t, run.out)))
	if !strings.Contains(string(prompt), "honest-in-tree-link") {
		t.Fatalf("the agent's prompt lacks PROMPT.md's target (exit %d):\n%s\n%s", code, prompt, log)
	}
	if strings.Contains(log, "leads out of the work tree") {
		t.Errorf("ralph-ci refused a link inside the tree:\n%s", log)
	}
}

// firstPID is the pid suffix of the first rotation's prompt file in out.
func firstPID(t *testing.T, out string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(out, "prompt-1-*"))
	if len(m) == 0 {
		t.Fatalf("the agent got no prompt")
	}
	return strings.TrimPrefix(filepath.Base(m[0]), "prompt-1-")
}

// gitLinkAgent, in its first rotation, does the work and makes the
// checkout's .git/refs/heads (and .git/logs, which git writes) links to
// $VICTIMS, a root-only folder: ralph-ci, as root, writes the branch's
// ref after each commit.
const gitLinkAgent = `cat > /dev/null
if [ "$RALPH_ITERATION" = 1 ]; then
  echo finished > work.txt
  echo true > helper.sh
  for d in .git/refs/heads .git/logs/refs/heads; do
    if [ -d "$d" ]; then rm -rf "$d" && ln -s "$VICTIMS" "$d" && echo "$d" >> "$OUT/planted"; fi
  done 2>> "$OUT/err"
fi
echo "- [x] work.txt says finished"
echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
echo "RALPH_STATUS: DONE"
`

// TestRootWritesNoGitRefThroughALink: the agent makes the checkout's
// .git/refs/heads a link to a root-only folder; ralph-ci, as root (run
// as root, and through sudo), writes nothing there.
func TestRootWritesNoGitRefThroughALink(t *testing.T) {
	for _, how := range []string{"root", "sudo"} {
		t.Run(how, func(t *testing.T) {
			files := maps.Clone(escapeFiles())
			files["agent.sh"] = gitLinkAgent
			files["check.sh"] = "sh ./helper.sh\ngrep -q finished work.txt\n"
			run := newTreeRun(t, how, files)
			victims := filepath.Join(run.private, "victims")
			if err := os.Mkdir(victims, 0o700); err != nil {
				t.Fatal(err)
			}
			log, code := run.ralph(t, []string{"OUT=" + run.out, "VICTIMS=" + victims},
				"--log-format", "json", "run", "--deliver", "pr", "--max-rotations", "3")
			planted, _ := os.ReadFile(filepath.Join(run.out, "planted"))
			t.Logf("exit %d; planted: %s", code, planted)
			if len(planted) == 0 {
				errs, _ := os.ReadFile(filepath.Join(run.out, "err"))
				t.Fatalf("the attack did not run as planned:\n%s\n%s", errs, log)
			}
			entries, _ := os.ReadDir(victims)
			for _, e := range entries {
				raw, _ := os.ReadFile(filepath.Join(victims, e.Name()))
				t.Errorf("ralph-ci, as root, wrote %s through the agent's .git/refs/heads link: %.200q", e.Name(), raw)
			}
			if !strings.Contains(log, "refs/heads") || !strings.Contains(log, "symbolic link") {
				t.Errorf("the log does not say why ralph-ci wrote no ref:\n%s", log)
			}
		})
	}
}
