package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Rotation is the in-flight rotation record, rotation.json: a write-ahead
// record written before the agent starts and removed once state.json holds
// the rotation's result. See the package documentation for the protocol.
type Rotation struct {
	// Iteration is the iteration this rotation will complete: state's
	// Iteration+1 at the time it starts.
	Iteration int `json:"iteration"`
	// Spec is the path of the spec being worked on, as in SpecState.Path.
	Spec string `json:"spec"`
	// Stage is the caller's name of the running step (e.g. "coder").
	Stage string `json:"stage"`
	// History is the rotation's log, relative to .ralph (see Dir.Rel).
	History string `json:"history"`
	// StartedAt is when the rotation started.
	StartedAt time.Time `json:"started_at"`
	// Before is the caller's change-detection snapshot taken before the
	// agent started; this package stores it as opaque JSON (its whitespace
	// may change, its value does not).
	Before json.RawMessage `json:"before,omitempty"`
}

// RotationMismatchError reports a rotation.json that is more than one
// iteration ahead of state.json, which the protocol never produces (for
// example state.json was restored from a backup or reset without discarding
// the record).
type RotationMismatchError struct {
	Path           string // rotation.json
	Rotation       int    // its iteration
	StateIteration int    // the iteration in state.json
}

// Error implements error.
func (e *RotationMismatchError) Error() string {
	return fmt.Sprintf("%s records iteration %d but state.json is at iteration %d (was state.json reset or restored?); delete %s to discard the interrupted rotation", e.Path, e.Rotation, e.StateIteration, e.Path)
}

func rotationFix(path string) string {
	return fmt.Sprintf("delete %s to discard the interrupted rotation: it will not be resumed, and edits it made before the crash will count as already present", path)
}

// BeginRotation records r in rotation.json atomically. Call it, and let it
// succeed, before starting the agent. Calling it again for the same
// rotation (e.g. to record a new Stage) replaces the record.
func BeginRotation(dir Dir, r Rotation) error {
	if r.Iteration < 1 || r.Spec == "" {
		return fmt.Errorf("begin rotation: invalid record (iteration %d, spec %q); this is a bug in ralph-ci", r.Iteration, r.Spec)
	}
	if len(r.Before) > 0 && !json.Valid(r.Before) {
		return fmt.Errorf("begin rotation: the change snapshot is not valid JSON; this is a bug in ralph-ci")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("begin rotation: %w", err)
	}
	if err := WriteFileAtomic(dir.RotationFile(), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("begin rotation: %w", err)
	}
	return nil
}

// PendingRotation returns the rotation that was interrupted by a crash, or
// nil if there is none. s must be the state just loaded from state.json.
//
//   - no rotation.json: nil;
//   - iteration == s.Iteration+1: the rotation was interrupted before its
//     result was saved; it is returned and the caller must re-run it against
//     r.Before, then Save and EndRotation as usual;
//   - iteration <= s.Iteration: the result was saved but the record not yet
//     removed; the stale record is removed and nil returned;
//   - iteration > s.Iteration+1: a *RotationMismatchError;
//   - unparsable or invalid rotation.json: a *CorruptError.
func PendingRotation(dir Dir, s State) (*Rotation, error) {
	path := dir.RotationFile()
	data, err := ReadOptional(path)
	if err != nil {
		return nil, fmt.Errorf("check for an interrupted rotation: %w", err)
	}
	if data == nil {
		return nil, nil
	}
	var r Rotation
	err = json.Unmarshal(data, &r)
	if err == nil && (r.Iteration < 1 || r.Spec == "") {
		err = fmt.Errorf("missing iteration or spec")
	}
	if err != nil {
		if len(bytes.TrimSpace(data)) == 0 {
			err = errors.New("the file is empty")
		}
		return nil, &CorruptError{Path: path, Err: err, Fix: rotationFix(path)}
	}
	switch {
	case r.Iteration == s.Iteration+1:
		if len(r.Before) > 0 {
			var buf bytes.Buffer
			if json.Compact(&buf, r.Before) == nil {
				r.Before = buf.Bytes()
			}
		}
		return &r, nil
	case r.Iteration <= s.Iteration:
		if err := EndRotation(dir); err != nil {
			return nil, fmt.Errorf("remove the record of an already saved rotation: %w", err)
		}
		return nil, nil
	default:
		return nil, &RotationMismatchError{Path: path, Rotation: r.Iteration, StateIteration: s.Iteration}
	}
}

// EndRotation removes rotation.json. Call it only after Save has
// written the rotation's result. A missing record is not an error.
//
// The removal is not flushed to disk: if a power loss undoes it, the
// record is at or below the saved iteration, which PendingRotation treats
// as done and deletes. That saves one directory fsync per rotation.
func EndRotation(dir Dir) error {
	if err := os.Remove(dir.RotationFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("end rotation: %w", err)
	}
	return nil
}
