package run

import (
	"context"
	"encoding/json"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"path/filepath"
	"testing"
)

// TestStatusAndReset: status shows where each spec stands; reset puts
// every counter back to 0/3 and keeps the rest.
func TestStatusAndReset(t *testing.T) {
	dir := repo(t, doneInFour)
	j, stdout, _ := newJob(dir)
	if err := Run(context.Background(), job.Open(j), Options{JSON: filepath.Join(t.TempDir(), "r.json")}); err != nil {
		t.Fatal(err)
	}
	rows := func() []map[string]any {
		t.Helper()
		stdout.Reset()
		if err := Status(job.Open(j), true); err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("status --json: %q (%v), want one spec", stdout, err)
		}
		return rows
	}
	if r := rows()[0]; r["counter"] != "3/3" || r["last_status"] != "DONE" {
		t.Errorf("after the run: %v, want 3/3 DONE", r)
	}
	if err := Reset(job.Open(j), nil); err != nil {
		t.Fatal(err)
	}
	if r := rows()[0]; r["counter"] != "0/3" || r["last_status"] != "DONE" {
		t.Errorf("after reset: %v, want 0/3, the last status kept", r)
	}
}
