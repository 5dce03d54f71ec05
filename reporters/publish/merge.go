package publish

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/jsonreport"
)

// Merge is the report merge command: it reads the JSON reports at paths
// (relative to t.Root), merges them (reporters.Merge), writes the merged
// report to t and prints one line of its totals on stdout. A missing
// report is a failure; one that is not a valid report, or reports that
// do not merge, are usage errors (exit 2).
func Merge(ctx context.Context, paths []string, t Targets, env actions.Env, stdout io.Writer) (*report.Report, error) {
	if t.JUnit == "" && t.JSON == "" && !t.GitHub {
		return nil, exitcode.Usagef("report merge: nothing to write; give --json FILE, --junit FILE or --github")
	}
	var inputs []*report.Report
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.Root, p)
		}
		r, err := ReadReport(p)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, r)
	}
	merged, err := reporters.Merge(inputs...)
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	if err := Write(ctx, merged, t, env, stdout); err != nil {
		return nil, err
	}
	tot := merged.Totals
	// "verified" counts as the step's verified output does: every spec at
	// 3/3, those awaiting a checkpoint included.
	fmt.Fprintf(stdout, "merged %d reports: %d specs, %d verified (%d of them awaiting a checkpoint), %d pending, %d failed, %d stuck; exit %s\n",
		len(inputs), tot.Specs, tot.AllVerified(), tot.Awaiting, tot.Pending, tot.Failed, tot.Stuck, merged.Exit.Class)
	return merged, nil
}

// ReadReport reads one input report: a missing file is a failure, a file
// that is not a valid report a usage error.
func ReadReport(path string) (*report.Report, error) {
	f, _, err := safefile.OpenRegular(path) // a FIFO or a device never blocks the merge
	if err != nil {
		return nil, fmt.Errorf("report merge: %w", err)
	}
	defer f.Close()
	r, err := jsonreport.Decode(f, path)
	if err != nil {
		return nil, exitcode.New(exitcode.Usage, err)
	}
	return r, nil
}
