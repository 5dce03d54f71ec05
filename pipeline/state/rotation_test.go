package state

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

func pendingState() State {
	return State{Version: Version, Iteration: 4, Current: "specs/a.spec.md",
		Specs: []SpecState{{Path: "specs/a.spec.md", Counting: Counting{DoneCount: 1, LastStatus: status.Done}}},
		Pending: &Rotation{Iteration: 5, Spec: "specs/a.spec.md", Stage: "coder", History: "history/a.spec-123456/003.log",
			StartedAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), Before: json.RawMessage(`{"kind":"git","head":"abc"}`)}}
}

// The pending rotation travels with the state in one write: what was
// saved before the agent started is what a restarted run finds.
func TestPendingRotationRoundTrip(t *testing.T) {
	dir := Dir(t.TempDir())
	in := pendingState()
	if err := Save(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var before, after map[string]any
	_ = json.Unmarshal(in.Pending.Before, &before)
	_ = json.Unmarshal(out.Pending.Before, &after)
	if out.Pending == nil || out.Pending.Iteration != 5 || out.Pending.Spec != in.Pending.Spec || out.Pending.History != in.Pending.History ||
		!out.Pending.StartedAt.Equal(in.Pending.StartedAt) || !reflect.DeepEqual(before, after) {
		t.Errorf("pending = %+v, want %+v", out.Pending, in.Pending)
	}
	// The write recording the rotation's result clears it.
	out.Iteration, out.Pending = 5, nil
	if err := Save(dir, out); err != nil {
		t.Fatal(err)
	}
	if again, _ := Load(dir); again.Pending != nil {
		t.Errorf("pending after the result was saved: %+v", again.Pending)
	}
}

// A pending record that does not follow the saved iteration is a bug when
// saving and corruption when loading (a hand-edited or restored file).
func TestPendingRotationMustFollowTheIteration(t *testing.T) {
	dir := Dir(t.TempDir())
	bad := pendingState()
	bad.Pending.Iteration = 7
	if err := Save(dir, bad); err == nil || !strings.Contains(err.Error(), "does not follow iteration 4") {
		t.Fatalf("Save: %v", err)
	}
	if err := os.WriteFile(dir.StatePath(), []byte(`{"version":1,"iteration":4,"specs":[],"pending":{"iteration":9,"spec":"a"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "pending rotation 9") {
		t.Fatalf("Load: %v", err)
	}
	bad = pendingState()
	bad.Pending.Before = json.RawMessage(`{not json`)
	if err := Save(dir, bad); err == nil {
		t.Fatal("Save accepted a baseline that is not JSON")
	}
}

func TestResetDiscardsThePendingRotation(t *testing.T) {
	if r := Reset(pendingState()); r.Pending != nil || r.Iteration != 0 {
		t.Errorf("reset: %+v", r)
	}
}
