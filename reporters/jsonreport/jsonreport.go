// Package jsonreport writes and reads the JSON report: report.Report
// marshalled as is, with "version": 1. Its shape is defined by #Report in
// schema/report.cue; Decode validates against it (in Go for a report
// exactly as Encode writes it, with CUE otherwise), so a report another job
// wrote (for `ralph-ci report merge`) is checked field by field with file,
// line and column.
//
// Encode normalises what the schema would refuse but Go allows: lists are
// never null, and negative, NaN or infinite costs and durations become 0.
package jsonreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/schema"
)

// maxSize bounds a report Decode reads (a report of thousands of
// rotations is a few megabytes).
const maxSize = 256 << 20

// JSON is the Reporter that writes the JSON report file at Path.
type JSON struct {
	Path string
}

var _ reporters.Reporter = (*JSON)(nil)

// Report writes r to j.Path atomically, creating its folder.
func (j *JSON) Report(ctx context.Context, r *report.Report) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := reporters.WriteFile(j.Path, func(w io.Writer) error { return Encode(w, r) }); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	return nil
}

// Encode writes r, normalised, as indented JSON to w. r is not modified.
func Encode(w io.Writer, r *report.Report) error {
	if r == nil {
		return fmt.Errorf("json report: no report")
	}
	b, err := json.MarshalIndent(Normalize(r), "", "  ")
	if err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	return nil
}

// Decode reads a JSON report named name (for messages) from rd: it must
// be of the current version and valid against #Report. A report exactly as
// Encode writes it is checked in Go (see trusted); any other goes through
// the schema, whose messages name the file, line and column.
func Decode(rd io.Reader, name string) (*report.Report, error) {
	src, err := io.ReadAll(io.LimitReader(rd, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(src) > maxSize {
		return nil, fmt.Errorf("%s: larger than %d MiB; not a ralph-ci report", name, maxSize>>20)
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(src, &head); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", name, err)
	}
	switch {
	case head.Version == nil:
		return nil, fmt.Errorf("%s: no \"version\": not a ralph-ci JSON report", name)
	case *head.Version != report.Version:
		return nil, fmt.Errorf("%s: report version %d; this ralph-ci reads version %d", name, *head.Version, report.Version)
	}
	if r, ok := trusted(src); ok {
		return r, nil
	}
	if err := schema.ValidateJSON("#Report", name, src); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	var r report.Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &r, nil
}

// ReadFile reads and decodes the JSON report at path.
func ReadFile(path string) (*report.Report, error) {
	f, _, err := safefile.OpenRegular(path) // a FIFO or a device never blocks the read
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	defer f.Close()
	return Decode(f, path)
}

// Normalize returns a copy of r that the schema accepts wherever r's
// values allow it: the version set when it is 0, nil lists made empty,
// and negative, NaN or infinite numbers of seconds and dollars made 0.
func Normalize(r *report.Report) *report.Report {
	out := *r
	if out.Version == 0 {
		out.Version = report.Version
	}
	out.Totals.CostUSD = finite(out.Totals.CostUSD)
	out.Specs = make([]report.Spec, len(r.Specs))
	for i, s := range r.Specs {
		s.CostUSD, s.DurationSeconds = finite(s.CostUSD), finite(s.DurationSeconds)
		s.Rotations = make([]report.Rotation, len(s.Rotations))
		for j, rot := range r.Specs[i].Rotations {
			rot.CostUSD, rot.DurationSeconds = finite(rot.CostUSD), finite(rot.DurationSeconds)
			if rot.ChangedFiles == nil {
				rot.ChangedFiles = []string{}
			}
			if rot.Layers == nil {
				rot.Layers = []report.Layer{}
			}
			s.Rotations[j] = rot
		}
		out.Specs[i] = s
	}
	return &out
}

// finite is x, or 0 when x is negative, NaN or infinite.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}
