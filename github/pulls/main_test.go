package pulls

import (
	"os"
	"testing"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
)

// TestMain removes the git directories of ralph-ci's own that the tests
// made (one per repository), as the binary does when it exits: without
// it every run of these tests left one in /var/tmp/ralph-ci-UID.
func TestMain(m *testing.M) {
	code := m.Run()
	igit.Cleanup()
	os.Exit(code)
}
