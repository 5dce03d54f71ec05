package git

import (
	"os"
	"testing"
)

// TestMain removes the git directories of ralph-ci's own that the tests
// made (one per repository), as the binary does when it exits.
func TestMain(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}
