package spend

import (
	"os"
	"testing"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// TestMain drops what points git at another repository (gitenv.Drop:
// the tests run under git bisect run or a hook must not write into the
// developer's), then removes the git directories of ralph-ci's own that the tests
// made (one per repository), as the binary does when it exits: without
// it every run of these tests left one in /var/tmp/ralph-ci-UID.
func TestMain(m *testing.M) {
	gitenv.Drop()
	code := m.Run()
	igit.Cleanup()
	os.Exit(code)
}
