package publish_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/reporters/actions"
	"github.com/ralph-ci/ralph-ci/reporters/publish"
	"github.com/ralph-ci/ralph-ci/reporters/reportstest"
)

// TestMerge: report merge reads the reports relative to the root, writes
// the merged one and prints its totals; nothing to write is a usage
// error, a file that is no report exit 2, a missing one a failure.
func TestMerge(t *testing.T) {
	root := t.TempDir()
	if err := publish.Write(context.Background(), reportstest.Report(), publish.Targets{Root: root, JSON: "a.json"}, actions.Env{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	merged, err := publish.Merge(context.Background(), []string{"a.json"}, publish.Targets{Root: root, JSON: "all.json"}, actions.Env{}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "merged 1 reports: ") || merged.Totals.Specs == 0 {
		t.Errorf("stdout %q, totals %+v", stdout.String(), merged.Totals)
	}
	if _, err := os.Stat(filepath.Join(root, "all.json")); err != nil {
		t.Errorf("the merged report: %v", err)
	}
	var ue *exitcode.UsageError
	if _, err := publish.Merge(context.Background(), []string{"a.json"}, publish.Targets{Root: root}, actions.Env{}, &stdout); !errors.As(err, &ue) {
		t.Errorf("nothing to write: %v, want a usage error", err)
	}
	if err := os.WriteFile(filepath.Join(root, "bad.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Merge(context.Background(), []string{"bad.json"}, publish.Targets{Root: root, JSON: "x.json"}, actions.Env{}, &stdout); exitcode.Of(err) != exitcode.Usage {
		t.Errorf("not a report: %v, want exit 2", err)
	}
	if _, err := publish.Merge(context.Background(), []string{"missing.json"}, publish.Targets{Root: root, JSON: "x.json"}, actions.Env{}, &stdout); err == nil || exitcode.Of(err) == exitcode.Usage {
		t.Errorf("missing: %v, want a failure", err)
	}
}
