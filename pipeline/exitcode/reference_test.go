package exitcode_test

import (
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/docgen"
	"github.com/ralph-ci/ralph-ci/internal/golden"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// docs/reference/exit-codes.md and the README's exit-code table are
// generated from Uses: a change to it that is not regenerated (go
// generate ./cmd/ralph-ci) fails here.
func TestReferenceIsFresh(t *testing.T) {
	golden.CheckFile(t, "../../docs/reference/exit-codes.md", []byte(docgen.ExitCodesPage(exitcode.Uses)))
	golden.CheckSection(t, "../../README.md", "exit codes", []byte(docgen.ExitCodeTable(exitcode.Uses)))
}
