package e2e

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// CIAgent writes work in its first two rotations (CONTINUE), then claims
// DONE with the promise and changes nothing. It notes each rotation's
// spec and iteration in $PROMPTS (outside the checkout).
const CIAgent = `prompt=$(cat)
if grep -qi extraheader .git/config 2>/dev/null; then echo "iteration $RALPH_ITERATION" >> "$PROMPTS.leak"; fi
n=$(ls "$PROMPTS" | wc -l)
echo "$RALPH_SPEC $RALPH_ITERATION" > "$PROMPTS/$((n + 1)).txt"
if [ "$RALPH_ITERATION" -le 2 ]; then
  echo "work of iteration $RALPH_ITERATION" >> work.txt
  echo "RALPH_STATUS: CONTINUE"
else
  printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'
  echo "<promise>IMPLEMENTATION_COMPLETE</promise>"
  echo "RALPH_STATUS: DONE"
fi
`

var CIRepoFiles = map[string]string{
	"ralph.yaml":      PRRepoFiles["ralph.yaml"],
	"specs/a.spec.md": PRRepoFiles["specs/a.spec.md"],
	"agent.sh":        CIAgent,
	".gitignore":      ".ralph/\n",
}

// CIWorld is the pull request of PRWorld held by a bare origin: each job
// is a fresh checkout (w.dir), and the fake's pull request follows
// origin's head branch.
type CIWorld struct {
	*PRWorld
	*ghorigin.Origin
}

// The origins a delivery test can run against: a file:// one (the
// default), and one served over HTTP that requires the job's token, as a
// private repository does, with actions/checkout's persist-credentials
// true (the token in .git/config) or false (ralph-ci hands it to its own
// fetch and push).
const (
	FileOrigin      = "file"
	HTTPOrigin      = "http, persist-credentials true"
	HTTPOriginNoPer = "http, persist-credentials false"
)

func NewCIWorld(t *testing.T, bin string, files map[string]string, origin ...string) *CIWorld {
	t.Helper()
	files = maps.Clone(files)
	files["ralph.yaml"] = WithRecords(files["ralph.yaml"])
	o := ghorigin.New(t, "master", "changes", 2, map[string]string{"README.md": "hello\n", ".gitignore": ".ralph/\n", "ralph.yaml": files["ralph.yaml"]}, files)
	return CIWorldOf(t, bin, o, files["ralph.yaml"], origin...)
}

// CIWorldOf is the CIWorld of origin o, whose base has baseConfig, served
// as origin says (FileOrigin by default).
func CIWorldOf(t *testing.T, bin string, o *ghorigin.Origin, baseConfig string, origin ...string) *CIWorld {
	t.Helper()
	w := &CIWorld{PRWorld: &PRWorld{T: t, Bin: bin}, Origin: o}
	if len(origin) > 0 && origin[0] != FileOrigin {
		o.ServeHTTP("test-token") // GITHUB_TOKEN of prWorld.env
		o.NoPersist = origin[0] == HTTPOriginNoPer
		w.ExtraEnv = append(w.ExtraEnv, "GITHUB_SERVER_URL="+o.ServerURL)
	}
	w.StartGitHub(baseConfig)
	w.Srv.HeadFrom, w.Srv.HeadRef = func() string { return w.Rev("refs/heads/changes") }, "changes"
	// The contents API reads origin; the fake's base commit is master.
	w.Srv.Files = map[string]map[string]string{}
	w.Srv.FilesFrom = func(ref, path string) (string, bool) {
		if ref == w.Srv.BaseSHA {
			ref = "master"
		}
		out, err := exec.Command("git", "-C", w.Bare, "cat-file", "blob", ref+":"+path).Output() // a file, not a folder
		return string(out), err == nil
	}
	return w
}

// Job starts a workflow run in a fresh checkout of sha at ref ("": the
// pull request's merge ref).
func (w *CIWorld) Job(sha, ref string) {
	if sha == "" {
		w.Dir = w.PRJob()
	} else {
		w.Dir = w.Checkout(sha, ref)
	}
	w.HeadSHA = w.Rev("refs/heads/changes")
}

// PersonPushes pushes a commit of a person to the head branch.
func (w *CIWorld) PersonPushes() string {
	return w.Push("changes", map[string]string{"human.txt": "human\n"}, "a human change")
}

// Iterations are the iterations the agent ran, in order.
func (w *CIWorld) Iterations() []string {
	var out []string
	for i := 1; ; i++ {
		b, err := os.ReadFile(filepath.Join(w.Prompts, strconv.Itoa(i)+".txt"))
		if err != nil {
			return out
		}
		_, it, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		out = append(out, it)
	}
}

// RalphEnv runs the binary with extra environment and requires want.
func (w *CIWorld) RalphEnv(want int, extra []string, args ...string) (stdout, stderr string) {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd, o, e := w.Command(ctx, args...)
	cmd.Env = append(cmd.Env, extra...)
	w.Exit(want, cmd.Run(), args, o, e)
	return o.String(), e.String()
}
