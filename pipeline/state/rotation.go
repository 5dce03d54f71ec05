package state

import (
	"encoding/json"
	"time"
)

// Rotation is the record of the rotation under way, kept in state.json as
// State.Pending: written (with the result of the previous rotation) before
// the agent starts, and cleared by the write that records its result. See
// the package documentation for the protocol.
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
