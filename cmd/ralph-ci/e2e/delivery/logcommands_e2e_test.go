package delivery

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// injected is a spec's file name that holds a newline and workflow
// commands: printed raw in the job's log, the runner would run them.
const injected = "specs/x\n::error title=INJECTED::INJECTED\n::stop-commands::INJECTED\n::add-mask::INJECTED\n  ::set-output name=INJECTED::x.spec.md"

// TestNoWorkflowCommandFromOutside walks every command that prints (run,
// check, status, answer, plan, report merge), in GitHub Actions with the
// console log on stderr, over a repository holding a spec whose file
// name holds a newline and workflow commands, an agent that prints one
// and an answer whose feedback holds one: no line of stdout or stderr is
// a workflow command the runner would run with that text, while
// ralph-ci's own commands (annotations, groups) are still there.
func TestNoWorkflowCommandFromOutside(t *testing.T) {
	bin := e2e.RalphBinary(t)
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml": "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\n" +
			"stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\nspecs: {default_tier: verify}\n",
		"agent.sh":   "cat > /dev/null\nprintf '::error::INJECTED by the agent\\n'\necho '<promise>IMPLEMENTATION_COMPLETE</promise>'\necho 'RALPH_STATUS: DONE'\n",
		injected:     "# Injected\n",
		".gitignore": ".ralph/\nout/\n",
	})
	gh := t.TempDir()
	env := append(os.Environ(), "GITHUB_ACTIONS=true", "GITHUB_OUTPUT="+filepath.Join(gh, "output"),
		"GITHUB_STEP_SUMMARY="+filepath.Join(gh, "summary"), "GITHUB_WORKSPACE="+dir)
	own := 0
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"check"}, 0},
		{[]string{"run", "--json", "out/report.json"}, 6},
		{[]string{"check"}, 6},
		{[]string{"status"}, 0},
		{[]string{"plan", "--shards", "2"}, 0},
		{[]string{"answer", injected, "3", "more detail\n::error::INJECTED in the feedback"}, 7},
		{[]string{"report", "merge", "--github", "--json", "out/merged.json", "out/report.json"}, 0},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, bin, append([]string{"--log-format", "console"}, c.args...)...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		cancel()
		name := strings.ReplaceAll(strings.Join(c.args, " "), "\n", `\n`)
		if code := cmd.ProcessState.ExitCode(); code != c.code {
			t.Errorf("ralph-ci %s: exit %d, want %d\n%s\n%s", name, code, c.code, stdout.String(), stderr.String())
		}
		for stream, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
				trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
				if !strings.HasPrefix(trimmed, "::") {
					continue
				}
				own++
				if injectedCommand(trimmed) {
					t.Errorf("ralph-ci %s: a workflow command from outside on %s: %q", name, stream, line)
				}
			}
		}
	}
	if own == 0 {
		t.Error("no workflow command of ralph-ci's own in the log either: is the log in GitHub Actions at all?")
	}
}

// injectedCommand tells whether a line of the log, its leading white
// space trimmed, is one of the workflow commands of the injected texts.
func injectedCommand(line string) bool {
	for _, c := range []string{"::error title=INJECTED::", "::stop-commands::INJECTED", "::add-mask::INJECTED", "::set-output name=INJECTED", "::error::INJECTED"} {
		if strings.HasPrefix(line, c) {
			return true
		}
	}
	return false
}
