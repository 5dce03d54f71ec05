package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// TestMain makes the test binary double as the ralph-ci binary (e2e.Main).
func TestMain(m *testing.M) { e2e.Main(m) }

func TestScripts(t *testing.T) {
	cache := scriptGoCache(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitcode},
		Condition:           runnerCondition,
		Setup: func(env *testscript.Env) error {
			env.Setenv("RUNNER_DEBUG", "")
			// The allowed values an error message lists, from the registry
			// (scripts say ${VERIFICATION_METHODS}, with cmpenv).
			env.Setenv("VERIFICATION_METHODS", quotedList(verify.Names()))
			// Scenarios that run go test share a build cache (HOME is
			// /no-home in a script).
			if cache != "" {
				env.Setenv("GOCACHE", cache)
			}
			// cargo installed by rustup finds its toolchains in the
			// user's ~/.rustup, out of reach with HOME=/no-home.
			if rustup := rustupHome(); rustup != "" {
				env.Setenv("RUSTUP_HOME", rustup)
			}
			if err := os.WriteFile(filepath.Join(env.WorkDir, "agent.sh"), []byte(planAgent), 0o755); err != nil {
				return err
			}
			// The bundled example, as a user gets it (without what a local
			// run of it left behind).
			qs := filepath.Join(env.WorkDir, "quickstart")
			if err := os.CopyFS(qs, os.DirFS("../../examples/quickstart")); err != nil {
				return err
			}
			return errors.Join(os.RemoveAll(filepath.Join(qs, ".ralph")), os.RemoveAll(filepath.Join(qs, "out")))
		},
	})
}

// quotedList is names as an error message lists them: "a", "b".
func quotedList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, ", ")
}

// scriptGoCache is the go build cache the scenarios share: the tests'
// own, but where they run as root, ralph-ci runs verification commands as
// the agent's users of their own (box.user auto: one of the pool's per
// run, so scenarios at once are different users), which may not write
// root's cache: then one all of them write, made for this test and
// removed after it (e2e.ShareWithAgents). "" for none.
func scriptGoCache(t *testing.T) string {
	if os.Geteuid() != 0 {
		c, _ := goCache()
		return c
	}
	dir, err := os.MkdirTemp("", "ralph-ci-script-gocache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e2e.ShareWithAgents(t, dir)
	return dir
}

// goCache is the go build cache of the process running the tests.
func goCache() (string, error) {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c, nil
	}
	dir, err := os.UserCacheDir()
	return filepath.Join(dir, "go-build"), err
}

// rustupHome is the RUSTUP_HOME of the process running the tests (its
// default, ~/.rustup, when it exists), or "" where cargo is not rustup's.
func rustupHome() string {
	if h := os.Getenv("RUSTUP_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(home, ".rustup")); err == nil && fi.IsDir() {
		return filepath.Join(home, ".rustup")
	}
	return ""
}

// runnerCondition is the script condition [runner:NAME]: the test runner
// NAME (pytest, jest, vitest, cargo, go; unittest: python3) is on PATH. .ci/run installs them, so in CI
// (CI=true) a missing runner fails the scenario instead of skipping it.
func runnerCondition(cond string) (bool, error) {
	name, ok := strings.CutPrefix(cond, "runner:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if bin, ok := runnerBinaries[name]; ok {
		name = bin
	}
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			return false, fmt.Errorf("the test runner %s is not installed (.ci/run installs it): %v", name, err)
		}
		return false, nil
	}
	return true, nil
}

// runnerBinaries are the programs of the runners not named by one.
var runnerBinaries = map[string]string{"unittest": "python3"}

// cmdExitcode is the script command `exitcode CODE PROGRAM [ARGS...]`: it
// runs PROGRAM as exec does (its stdout and stderr are then what stdout
// and stderr match) and fails unless it exits with exactly CODE, where
// `! exec` would accept any failure. It cannot be negated.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exitcode: cannot be negated; name the code it must exit with")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: code %q is not a number", args[0])
	}
	got := 0
	var exit *exec.ExitError
	if err := ts.Exec(args[1], args[2:]...); errors.As(err, &exit) {
		got = exit.ExitCode()
	} else if err != nil {
		ts.Fatalf("exitcode: %s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// planAgent is the scripted agent of the scenarios: it plays the line of
// plan.txt numbered by the global iteration ("SPEC SHELL..."), where SHELL
// may call `promise` (print the acceptance criteria of the prompt, each
// marked done, then the promise it asks for), `criteria` (the criteria
// alone) and `status WORD`. It logs every call to .ralph/calls.log and keeps the last prompt
// in .ralph/last-prompt.txt; a plan that disagrees with the spec ralph-ci
// chose makes it report STUCK.
const planAgent = `prompt=$(cat)
printf '%s\n' "$prompt" > .ralph/last-prompt.txt
line=$(sed -n "${RALPH_ITERATION}p" plan.txt)
want=${line%% *}
echo "$RALPH_ITERATION $RALPH_SPEC $RALPH_STAGE" >> .ralph/calls.log
if [ "$want" != "$RALPH_SPEC" ]; then
	echo "plan says $want at iteration $RALPH_ITERATION"
	echo "RALPH_STATUS: STUCK"
	exit 0
fi
promise() { criteria; printf '%s\n' "$prompt" | grep -o '^<promise>.*</promise>$' | head -n 1; }
criteria() { printf '%s\n' "$prompt" | sed -n '/^## Acceptance Criteria$/,/^$/s/^- \[ \] /- [x] /p'; }
status() { echo "RALPH_STATUS: $1"; }
eval "${line#* }"
`
