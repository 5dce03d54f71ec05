package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// TestMain makes the test binary double as the ralph-ci binary, so the
// scripts in testdata/script run the real command line end to end.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ralph-ci":         func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		agent.ShepherdName: func() { os.Exit(agent.ShepherdMain(os.Args[1:])) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("RUNNER_DEBUG", "")
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

// planAgent is the scripted agent of the scenarios: it plays the line of
// plan.txt numbered by the global iteration ("SPEC SHELL..."), where SHELL
// may call `promise` (print the promise the prompt asks for) and `status
// WORD`. It logs every call to .ralph/calls.log and keeps the last prompt
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
promise() { printf '%s\n' "$prompt" | grep -o '^<promise>.*</promise>$' | head -n 1; }
status() { echo "RALPH_STATUS: $1"; }
eval "${line#* }"
`
