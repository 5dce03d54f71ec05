//go:build unix

package agent

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary double as a parent process the tests can
// kill (see shepherd_linux_test.go). It doubles as ralph-ci's shepherd
// too, from internal/shepherd's init, before TestMain runs.
func TestMain(m *testing.M) {
	if os.Getenv(parentEnv) != "" {
		os.Exit(parentMain())
	}
	os.Exit(m.Run())
}

// parentEnv makes the test binary a parent that runs the script in
// $parentEnv under a shepherd (the test kills it with SIGKILL).
const parentEnv = "AGENT_TEST_PARENT_SCRIPT"

func parentMain() int {
	exe, err := os.Executable()
	if err != nil {
		return 3
	}
	_, err = runWith(context.Background(), Invocation{Argv: sh(os.Getenv(parentEnv)), Grace: 200 * time.Millisecond, Output: os.Stdout}, exe)
	if err != nil {
		return 4
	}
	return 0
}
