package state

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

var update = flag.Bool("update", false, "rewrite testdata/state.golden.json")

// goldenState sets every field of the state, each to a value that shows
// in state.json. Fields are set one by one (not by a composite literal)
// so the same code builds the state whatever struct groups them.
func goldenState() State {
	var a SpecState
	a.Path = "specs/a.spec.md"
	a.DoneCount, a.LastStatus, a.LastHash = 2, "REJECTED", "3f2a"
	a.ModifiedFiles, a.ChangedFiles, a.Rotations, a.StuckCount = true, []string{"a.go", "b <&> c.go"}, 7, 1
	a.Stage, a.StageIterations, a.StagesDone = "tester", 3, true
	a.Reason, a.Excluded = "Promise 'X' not found", "max iterations (5) of stage tester reached"
	a.Checkpoint = &tiers.Record{Status: tiers.StatusRework, SHA: "abc123", RejectionCount: 1, RejectionLog: []tiers.Rejection{}}
	a.TaskKey, a.TaskIndex, a.TaskStage = "3f2a", 4, "coder"
	a.ReviewIteration, a.ReviewFindings, a.ReviewFixFailures = 2, "fix a.go:3", 1
	a.VerifierKey = "coder@3f2a@check.sh"
	a.VerifierHashes = map[string]string{"check.sh": "aa", "t/x_test.go": ""}
	a.VerifierSeen = map[string]string{"check.sh": "bb", "t/x_test.go": ""}
	var b SpecState
	b.Path, b.LastStatus = "PROMPT.md", "NONE"
	return State{Iteration: 9, Current: "specs/a.spec.md", Specs: []SpecState{a, b},
		Pending: &Rotation{Iteration: 10, Spec: "PROMPT.md", Stage: "coder", History: "history/PROMPT-123456/001.log",
			StartedAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), Before: json.RawMessage(`{"kind":"git"}`)}}
}

// state.json is a format users and older runs read: grouping SpecState's
// fields by feature must not change one byte of it.
func TestStateJSONIsUnchanged(t *testing.T) {
	dir := Dir(t.TempDir())
	if err := Save(dir, goldenState()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dir.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "state.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("state.json changed:\n got %s\nwant %s", got, want)
	}
	// Loaded and saved again, it is the same file: no field is lost.
	back, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	again := Dir(t.TempDir())
	if err := Save(again, back); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(again.StatePath()); err != nil || !bytes.Equal(got, want) {
		t.Errorf("loaded and saved again (%v):\n got %s\nwant %s", err, got, want)
	}
}
