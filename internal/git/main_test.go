package git

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// TestMain drops the variables that point git elsewhere (gitenv.Drop),
// then removes the git directories of ralph-ci's own that the tests
// made (one per repository), as the binary does when it exits. Started
// with holdBaseEnv set, the test binary is a run that holds a git
// directory there (see TestSweepGoneRemovesOnlyGoneRuns).
func TestMain(m *testing.M) {
	gitenv.Drop()
	if base := os.Getenv(holdBaseEnv); base != "" {
		dir, _, err := makeHeldDir(base)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(dir)
		_, _ = io.Copy(io.Discard, os.Stdin) // until the test closes stdin or kills it
		os.Exit(0)
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
