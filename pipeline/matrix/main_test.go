package matrix

import (
	"os"
	"testing"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// TestMain drops what points git at another repository (gitenv.Drop:
// the tests run under git bisect run or a hook must not write into the
// developer's), then removes ralph-ci's own git directories that the tests made, as
// the binary does when it exits.
func TestMain(m *testing.M) {
	gitenv.Drop()
	code := m.Run()
	igit.Cleanup()
	os.Exit(code)
}
