package box

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// TestMain makes the test binary double as the ralph-ci binary (e2e.Main).
func TestMain(m *testing.M) { e2e.Main(m) }
