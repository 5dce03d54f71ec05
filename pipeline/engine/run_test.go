package engine

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/report"

	"github.com/rs/zerolog"
)

// planAgent is a scripted agent: line N of plan.txt is what it does at
// rotation N (shell), with promise (the stage's promise tag, read from the
// prompt) and status WORD at hand.
const planAgent = `prompt=$(cat)
line=$(sed -n "${RALPH_ITERATION}p" plan.txt)
promise() { printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'; printf '%s\n' "$prompt" | grep -o '^<promise>.*</promise>$' | head -n 1; }
status() { echo "RALPH_STATUS: $1"; }
eval "$line"
`

// runRepo makes a git repository of files (and agent.sh), commits it,
// and runs the engine on it for at most max rotations. It returns the
// outcome and the run's log.
func runRepo(t *testing.T, files map[string]string, max int) (Outcome, string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	files["agent.sh"] = planAgent
	files[".gitignore"] = ".ralph/\n"
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	p, err := project.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	out, err := Run(context.Background(), Options{Project: p, MaxRotations: max, Log: zerolog.New(&log)})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	return out, log.String(), dir
}

// rotationsOf lists a spec's rotations in the report as "STATUS counter".
func rotationsOf(r *report.Report) []report.Rotation {
	var out []report.Rotation
	for _, s := range r.Specs {
		out = append(out, s.Rotations...)
	}
	return out
}

// externalSpec verifies its coder stage with sh check.sh.
const externalSpec = "---\ncompletion:\n  outcome: a.txt exists\n  acceptance_criteria: [a.txt exists]\n  coder:\n    promise: CHECKED\n    description: a.txt written\n    verification_method: external\n    verification_config:\n      command: sh check.sh\n---\n# A\n"

const oneStage = "stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: auto}\n"

// A run to 3/3 through an external check: the engine gathers the facts,
// runs the method when Judge asks for it, and applies each verdict.
func TestRunVerifiesWithAnExternalCheck(t *testing.T) {
	out, log, _ := runRepo(t, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" + oneStage,
		"check.sh":        "test -f a.txt\n",
		"specs/a.spec.md": externalSpec,
		"plan.txt":        "promise; status DONE\necho a > a.txt; promise; status DONE\npromise; status DONE\npromise; status DONE\n",
	}, 10)
	if out.Code != exitcode.OK {
		t.Fatalf("code %v (%s), want done\n%s", out.Code, out.Message, log)
	}
	rots := rotationsOf(out.Report)
	if len(rots) != 4 || rots[0].Status != "REJECTED" || rots[3].Counter != 3 {
		t.Fatalf("rotations %+v", rots)
	}
	if names := layerNames(rots[1].Layers); names != "contradiction signal promise criteria verifier_guard unfinished tampering external review" {
		t.Errorf("layers of the first accepted claim: %s", names)
	}
}

// Markers of unfinished work: the engine diffs the loop's work only when
// Judge asks, and the rejection is logged and reported.
func TestRunRejectsUnfinishedWork(t *testing.T) {
	out, log, _ := runRepo(t, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" + oneStage,
		"specs/a.spec.md": "# A\n",
		"plan.txt":        "echo 'TODO: write it' > a.txt; promise; status DONE\necho done > a.txt; promise; status DONE\n",
	}, 2)
	rots := rotationsOf(out.Report)
	if len(rots) != 2 || !strings.Contains(rots[0].Reason, "work left undone: the loop added a.txt: TODO") || rots[1].Status != "DONE" {
		t.Fatalf("rotations %+v\n%s", rots, log)
	}
}

// The artifact review: the reviewer runs when Judge asks, its answer is
// judged, and the progress log gets the entries the verdict carries.
func TestRunReviews(t *testing.T) {
	out, log, dir := runRepo(t, map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n  reviewer: {command: [sh, review.sh], timeout: 1m}\n" +
			oneStage + "layers: {review: {every: 1}}\n",
		"review.sh":       "cat >/dev/null\ncat .ralph/review.txt\n",
		"specs/a.spec.md": "# A\n",
		"plan.txt": "printf 'a.txt:1 is wrong\\nREVIEW_FAIL\\n' > .ralph/review.txt; promise; status DONE\n" +
			"printf 'fine\\nREVIEW_PASS\\n' > .ralph/review.txt; promise; status DONE\n",
	}, 2)
	rots := rotationsOf(out.Report)
	if len(rots) != 2 || !strings.HasPrefix(rots[0].Reason, "REVIEW_FAIL (review iteration 1 of 3)") || rots[1].Status != "DONE" {
		t.Fatalf("rotations %+v\n%s", rots, log)
	}
	progress, err := os.ReadFile(filepath.Join(dir, ".ralph", "progress", out.Specs[0].Key+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Iteration 1)\n- Status: REVIEW_FAIL", "Iteration 2)\n- Status: REVIEW_PASS"} {
		if !bytes.Contains(progress, []byte(want)) {
			t.Errorf("progress log without %q:\n%s", want, progress)
		}
	}
}

// A changed verifier: the guard's rejection is logged with the files,
// before the method (which would pass now) runs.
func TestRunGuardsTheVerifier(t *testing.T) {
	out, log, _ := runRepo(t, map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" + oneStage,
		"check.sh":        "exit 1\n",
		"specs/a.spec.md": externalSpec,
		"plan.txt":        "echo 'exit 0' > check.sh; promise; status DONE\n",
	}, 1)
	rots := rotationsOf(out.Report)
	if len(rots) != 1 || !strings.Contains(rots[0].Reason, "the verification files changed") {
		t.Fatalf("rotations %+v\n%s", rots, log)
	}
	if !strings.Contains(log, `"files":["check.sh"],"message":"verifier guard: claim rejected, the verification files were changed"`) {
		t.Errorf("no warning naming check.sh:\n%s", log)
	}
}

func layerNames(ls []report.Layer) string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return strings.Join(out, " ")
}
