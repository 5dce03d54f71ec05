package state

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleRotation(iteration int) Rotation {
	return Rotation{
		Iteration: iteration, Spec: "specs/api.spec.md", Stage: "coder",
		History:   "history/api.spec-d4e5f6/003.log",
		StartedAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		Before:    json.RawMessage(`{"files":{"a.go":"abc"},"head":"deadbeef"}`),
	}
}

func TestPendingRotationNone(t *testing.T) {
	r, err := PendingRotation(newDir(t), State{Version: 1, Iteration: 4})
	if r != nil || err != nil {
		t.Fatalf("got %+v, %v", r, err)
	}
}

func TestPendingRotationInterrupted(t *testing.T) {
	d := newDir(t)
	st := State{Version: 1, Iteration: 11}
	if err := Save(d, st); err != nil {
		t.Fatal(err)
	}
	want := sampleRotation(12)
	if err := BeginRotation(d, want); err != nil {
		t.Fatal(err)
	}
	// Crash: neither Save nor EndRotation happened.
	loaded, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := PendingRotation(d, loaded)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("pending:\n got %+v\nwant %+v", got, want)
	}
	if _, err := os.Stat(d.RotationFile()); err != nil {
		t.Error("the record of an interrupted rotation must stay until EndRotation")
	}
	// The re-run completes normally.
	if err := Save(d, State{Version: 1, Iteration: 12}); err != nil {
		t.Fatal(err)
	}
	if err := EndRotation(d); err != nil {
		t.Fatal(err)
	}
	if r, err := PendingRotation(d, State{Version: 1, Iteration: 12}); r != nil || err != nil {
		t.Fatalf("after EndRotation: %+v, %v", r, err)
	}
}

func TestPendingRotationAlreadySaved(t *testing.T) {
	for _, iteration := range []int{12, 5} { // == state, < state
		d := newDir(t)
		if err := BeginRotation(d, sampleRotation(iteration)); err != nil {
			t.Fatal(err)
		}
		// Crash after Save(iteration 12) but before EndRotation.
		r, err := PendingRotation(d, State{Version: 1, Iteration: 12})
		if r != nil || err != nil {
			t.Fatalf("iteration %d: got %+v, %v", iteration, r, err)
		}
		if _, err := os.Stat(d.RotationFile()); !os.IsNotExist(err) {
			t.Errorf("iteration %d: stale rotation.json not removed", iteration)
		}
	}
}

func TestPendingRotationAhead(t *testing.T) {
	d := newDir(t)
	if err := BeginRotation(d, sampleRotation(13)); err != nil {
		t.Fatal(err)
	}
	_, err := PendingRotation(d, State{Version: 1, Iteration: 0}) // e.g. after a reset
	var me *RotationMismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "delete "+d.RotationFile()) {
		t.Fatalf("want *RotationMismatchError, got %v", err)
	}
	if _, err := os.Stat(d.RotationFile()); err != nil {
		t.Error("rotation.json removed despite the mismatch")
	}
}

func TestPendingRotationCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"empty":     "",
		"garbage":   "{\"iteration\": 1",
		"no spec":   `{"iteration": 3}`,
		"wrong tpe": `{"iteration": "3", "spec": "a"}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := newDir(t)
			if err := os.WriteFile(d.RotationFile(), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := PendingRotation(d, State{Version: 1, Iteration: 2})
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("want *CorruptError, got %T %v", err, err)
			}
			for _, want := range []string{d.RotationFile(), "delete " + d.RotationFile(), "interrupted rotation"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestBeginRotationValidatesAndOverwrites(t *testing.T) {
	d := newDir(t)
	if err := BeginRotation(d, Rotation{Spec: "a"}); err == nil {
		t.Error("iteration 0 accepted")
	}
	bad := sampleRotation(1)
	bad.Before = json.RawMessage("{not json")
	if err := BeginRotation(d, bad); err == nil {
		t.Error("invalid snapshot accepted")
	}
	r := sampleRotation(1)
	if err := BeginRotation(d, r); err != nil {
		t.Fatal(err)
	}
	r.Stage = "verifier"
	if err := BeginRotation(d, r); err != nil {
		t.Fatal(err)
	}
	got, err := PendingRotation(d, State{Version: 1})
	if err != nil || got == nil || got.Stage != "verifier" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if err := EndRotation(d); err != nil {
		t.Fatal(err)
	}
	if err := EndRotation(d); err != nil {
		t.Errorf("EndRotation without a record: %v", err)
	}
}
