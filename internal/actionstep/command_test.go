package actionstep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// argsBinary stands in for ralph-ci in the ralph-ci step: it prints its
// arguments, one a line, what it reads on the token's descriptor and
// whether any variable holds the token; as ralph-ci does when the step
// execs it (RALPH_ACTION=1), it writes the exit-code output.
func argsBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ralph-ci-args")
	script := `#!/bin/sh
for a in "$@"; do echo "arg:$a"; done
echo "fd:$(cat <&$RALPH_TOKEN_FD)"
env | grep -q test-token && echo "the token is in the environment"
if [ "$RALPH_ACTION" = 1 ]; then echo "exit-code=0" >> "$GITHUB_OUTPUT"; fi
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestMergeCommand runs the ralph-ci step with command: merge, as the
// shards example does: the reports input's patterns are expanded in
// working-directory (never evaluated), and no match is a usage error.
func TestMergeCommand(t *testing.T) {
	for _, tt := range []struct {
		name, reports string
		wantArgs      []string
		wantCode      string
	}{{
		name:     "patterns on lines and spaces",
		reports:  "reports/*/report.json\nextra.json  $(touch pwned)",
		wantArgs: []string{"-C", ".", "--log-format", "console", "report", "merge", "--github", "--json", "merged/report.json", "--junit", "merged/junit.xml", "reports/api/report.json", "reports/web/report.json", "extra.json"},
		wantCode: "0",
	}, {
		name:     "no match",
		reports:  "nothing/*.json",
		wantCode: "2",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob(t, "main", "X64", map[string]string{
				"command": "merge", "reports": tt.reports, "json": "merged/report.json", "junit": "merged/junit.xml",
			}, func(good, bad string) *fakeRelease { return newRelease(t, good, bad, false) }, func(string) {})
			ws := j.runner.Ctx["github.workspace"]
			for _, f := range []string{"reports/api/report.json", "reports/web/report.json", "extra.json"} {
				if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(f)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, f), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			j.runner.Ctx["steps.build.outputs.bin"] = argsBinary(t, j.temp)
			res := j.step(t, "ralph")
			if res.Outputs["exit-code"] != tt.wantCode {
				t.Errorf("exit-code = %q, want %s\n%s", res.Outputs["exit-code"], tt.wantCode, res.Output)
			}
			var args []string
			for _, line := range strings.Split(res.Output, "\n") {
				if a, ok := strings.CutPrefix(line, "arg:"); ok {
					args = append(args, a)
				}
			}
			if strings.Join(args, "|") != strings.Join(tt.wantArgs, "|") {
				t.Errorf("args = %q, want %q", args, tt.wantArgs)
			}
			if tt.wantArgs == nil && !strings.Contains(res.Output, "::error title=ralph-ci::no JSON report matches the reports input") {
				t.Errorf("no error for no match:\n%s", res.Output)
			}
			if tt.wantArgs != nil && (!strings.Contains(res.Output, "fd:test-token\n") || strings.Contains(res.Output, "the token is in the environment")) {
				t.Errorf("the token did not come on its descriptor only:\n%s", res.Output)
			}
			if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
				t.Error("a pattern was evaluated as shell code")
			}
		})
	}
}

// tokenFilesBinary stands in for ralph-ci.exe on a Windows runner: it
// prints what the files the step names hold and their mode, whether a
// descriptor was named, and whether any variable holds a token.
func tokenFilesBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ralph-ci-files")
	script := `#!/bin/sh
echo "fd:${RALPH_TOKEN_FD:-none} ${RALPH_PUSH_TOKEN_FD:-none}"
for f in "$RALPH_TOKEN_FILE" "$RALPH_PUSH_TOKEN_FILE"; do
	echo "file:$(dirname "$f") $(stat -c %a "$f") $(cat "$f")"
done
env | grep -q test-token && echo "a token is in the environment"
echo "exit-code=0" >> "$GITHUB_OUTPUT"
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestTokensInFilesOnWindows: on a Windows runner, whose programs inherit
// no descriptor above 2, the ralph-ci step hands the token and the
// push-token in files only its user may read, in the runner's temporary
// folder (ralph-ci reads and deletes them at its start), and still in no
// variable; elsewhere it keeps the descriptors.
func TestTokensInFilesOnWindows(t *testing.T) {
	j := newJob(t, "main", "X64", map[string]string{"command": "check", "push-token": "test-token-push"},
		func(good, bad string) *fakeRelease { return newRelease(t, good, bad, false) }, func(string) {})
	j.runner.Ctx["runner.os"] = "Windows"
	j.runner.Ctx["steps.build.outputs.bin"] = tokenFilesBinary(t, j.temp)
	res := j.step(t, "ralph")
	for _, want := range []string{"fd:none none\n", "file:" + j.temp + " 600 test-token\n", "file:" + j.temp + " 600 test-token-push\n"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("the step's output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "a token is in the environment") {
		t.Errorf("a token reached ralph-ci's environment:\n%s", res.Output)
	}

	j.runner.Ctx["runner.os"] = "Linux"
	j.runner.Ctx["steps.build.outputs.bin"] = argsBinary(t, j.temp)
	if res := j.step(t, "ralph"); !strings.Contains(res.Output, "fd:test-token\n") {
		t.Errorf("on Linux the token did not come on its descriptor:\n%s", res.Output)
	}
}
