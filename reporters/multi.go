package reporters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Multi is a Reporter that hands the report to several reporters in
// order. Every reporter runs even when an earlier one fails; their errors
// are joined. It stops early only when ctx is cancelled.
type Multi []Reporter

var _ Reporter = Multi(nil)

// Report runs every reporter of m on r.
func (m Multi) Report(ctx context.Context, r *Report) error {
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

// WriteFile writes a report file through write, atomically: into a
// temporary file beside path (its parent folders are created), synced,
// then renamed over path. Readers never see a half-written report, and a
// failed write leaves any previous file in place.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	if path == "" {
		return errors.New("write report: no file name")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}

// ComputeTotals sums up specs: how many there are, how many have each
// outcome, the rotations they ran and what they cost. A spec with an
// unknown outcome counts in Specs only.
func ComputeTotals(specs []Spec) Totals {
	var t Totals
	for _, s := range specs {
		t.Specs++
		t.Rotations += len(s.Rotations)
		t.CostUSD += s.CostUSD
		switch s.Outcome {
		case SpecVerified:
			t.Verified++
		case SpecPending:
			t.Pending++
		case SpecFailed:
			t.Failed++
		case SpecStuck:
			t.Stuck++
		case SpecAwaiting:
			t.Awaiting++
		}
	}
	return t
}
