package reporters_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

// recorder is a Reporter that records its calls and returns err.
type recorder struct {
	calls *[]string
	name  string
	err   error
}

func (r recorder) Report(context.Context, *report.Report) error {
	*r.calls = append(*r.calls, r.name)
	return r.err
}

func TestMultiRunsEveryReporter(t *testing.T) {
	var calls []string
	errA, errC := errors.New("a failed"), errors.New("c failed")
	m := reporters.Multi{recorder{&calls, "a", errA}, recorder{&calls, "b", nil}, recorder{&calls, "c", errC}}
	err := m.Report(context.Background(), reportstest.Report())
	if !errors.Is(err, errA) || !errors.Is(err, errC) {
		t.Errorf("error %v, want both failures", err)
	}
	if len(calls) != 3 {
		t.Errorf("calls %v, want a b c", calls)
	}
}

func TestMultiStopsWhenCancelled(t *testing.T) {
	var calls []string
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := reporters.Multi{recorder{&calls, "a", nil}}.Report(ctx, reportstest.Report())
	if !errors.Is(err, context.Canceled) || len(calls) != 0 {
		t.Errorf("error %v after calls %v, want context.Canceled and no call", err, calls)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "report.txt")
	if err := reporters.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("encoder broke")
	err := reporters.WriteFile(path, func(w io.Writer) error { io.WriteString(w, "half"); return failed })
	if !errors.Is(err, failed) {
		t.Errorf("error %v, want the writer's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("after a failed write the file holds %q, want the previous %q", b, "one")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := reporters.WriteFile("", nil); err == nil {
		t.Error("WriteFile with no name: no error")
	}
}

func TestComputeTotals(t *testing.T) {
	r := reportstest.Report()
	want := report.Totals{Specs: 5, Verified: 1, Pending: 1, Failed: 1, Stuck: 1, Awaiting: 1, Rotations: 9, CostUSD: 0.75}
	got := report.ComputeTotals(r.Specs)
	got.CostUSD = float64(int(got.CostUSD*1e6+0.5)) / 1e6
	if got != want {
		t.Errorf("ComputeTotals = %+v, want %+v", got, want)
	}
}
