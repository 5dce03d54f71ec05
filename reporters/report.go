// Package reporters turns the outcome of a run into the reports CI users
// read: JUnit XML (reporters/junit), a JSON report (reporters/jsonreport)
// and GitHub Actions output (reporters/actions), written together by
// reporters/publish. The data model every reporter reads, and the engine
// fills, is package pipeline/report. The text helpers the reports share are in
// internal/text.
package reporters

import (
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// Reporter writes one kind of report.
type Reporter interface {
	Report(ctx context.Context, r *report.Report) error
}
