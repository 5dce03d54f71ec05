package e2e

import (
	"github.com/ralph-ci/ralph-ci/pipeline/matrix"
	"github.com/ralph-ci/ralph-ci/reporters/publish"
)

// What the end-to-end tests read, with the names it had when it lived in
// this package.

// MatrixEntry is one job of the matrix plan prints.
type MatrixEntry = matrix.Entry

// readReport reads a JSON report as report merge does.
var readReport = publish.ReadReport
