package matrix

import (
	"os"
	"testing"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
)

// TestMain removes ralph-ci's own git directories that the tests made, as
// the binary does when it exits.
func TestMain(m *testing.M) {
	code := m.Run()
	igit.Cleanup()
	os.Exit(code)
}
