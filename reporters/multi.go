package reporters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// Multi is a Reporter that hands the report to several reporters in
// order. Every reporter runs even when an earlier one fails; their errors
// are joined. It stops early only when ctx is cancelled.
type Multi []Reporter

var _ Reporter = Multi(nil)

// Report runs every reporter of m on r.
func (m Multi) Report(ctx context.Context, r *report.Report) error {
	var errs []error
	for _, rep := range m {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, err)...)
		}
		if err := rep.Report(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WriteFile writes a report file through write, atomically (renameio;
// on Windows safefile.Replace, which says what is atomic there): into a
// temporary file beside path (its parent folders are created), synced,
// then renamed over path. Readers never see a half-written report, and a
// failed write leaves any previous file in place.
func WriteFile(path string, write func(io.Writer) error) error {
	if path == "" {
		return errors.New("write report: no file name")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := replaceFile(path, write); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}
