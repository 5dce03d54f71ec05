package gitstate

import (
	"os"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// TestMain drops what points git at another repository (gitenv.Drop):
// the tests, run under git bisect run or a hook, must not write into the
// developer's.
func TestMain(m *testing.M) {
	gitenv.Drop()
	os.Exit(m.Run())
}
