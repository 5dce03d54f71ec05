package state

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/usage"
)

// Version is the state.json format version this package reads and writes.
const Version = 1

// State is the content of state.json: the matrix of all specs.
type State struct {
	// Version is the format version; Save always writes [Version].
	Version int `json:"version"`
	// Iteration is the global number of completed rotations.
	Iteration int `json:"iteration"`
	// Specs holds one entry per spec; Save sorts it by Path.
	Specs []SpecState `json:"specs"`
	// Current is the spec of the last rotation: a resumed run keeps its
	// focus on it exactly as an uninterrupted run would.
	Current string `json:"current,omitempty"`
	// Pending is the rotation under way (iteration Iteration+1), written
	// before its agent starts; a run that finds it re-runs that rotation
	// against its recorded baseline. See the package documentation.
	Pending *Rotation `json:"pending,omitempty"`
	// LimitedAgents are the agents a rate limit or quota stopped, with the
	// time their limit resets, so that the next run (the next CI job) does
	// not call them again before it.
	LimitedAgents map[string]time.Time `json:"limited_agents,omitempty"`
	// Spend is what every run of this state spent: with delivery, one
	// pull request's loop (budgets.per_pull_request).
	Spend usage.Amount `json:"spend,omitzero"`
}

// CorruptError reports a state file that cannot be parsed. It is never
// "repaired" silently: the user decides, following Fix.
type CorruptError struct {
	Path string // the file
	Err  error  // what is wrong with it
	Fix  string // what the user can do
}

// Error implements error.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is corrupt (%v); %s", e.Path, e.Err, e.Fix)
}

// Unwrap returns the underlying parse error.
func (e *CorruptError) Unwrap() error { return e.Err }

// VersionError reports a state.json written by a newer ralph-ci.
type VersionError struct {
	Path  string // the file
	Found int    // the version in the file
}

// Error implements error.
func (e *VersionError) Error() string {
	return fmt.Sprintf("%s has format version %d but this ralph-ci only understands version %d: it was written by a newer ralph-ci; upgrade ralph-ci", e.Path, e.Found, Version)
}

func stateFix(path string) string {
	return fmt.Sprintf("delete %s to start over, or replace it with %s, the state one save earlier", path, spareOf(path))
}

// Load reads state.json. A missing file yields an empty state (version 1,
// iteration 0). A file that cannot be parsed yields a *CorruptError, one
// written by a newer ralph-ci a *VersionError.
//
// Load may run while a run saves (ralph-ci status takes no lock): it holds
// a shared flock on the directory while it reads, so that the file it
// opened is not rewritten under it (see writeFileOrdered).
func Load(dir Dir) (State, error) {
	unlock, _, err := lockDir(dir.Path(), false)
	if err != nil {
		return State{}, fmt.Errorf("load ralph-ci state: %w", err)
	}
	data, err := ReadOptional(dir.StatePath())
	unlock()
	if err != nil {
		return State{}, fmt.Errorf("load ralph-ci state: %w", err)
	}
	if data == nil {
		return State{Version: Version}, nil
	}
	return decode(dir.StatePath(), data)
}

// decode parses the content of state.json at path.
func decode(path string, data []byte) (State, error) {
	corrupt := func(err error) (State, error) {
		return State{}, &CorruptError{Path: path, Err: err, Fix: stateFix(path)}
	}
	// Check the version first, so that a newer format whose fields changed
	// type reports "upgrade" rather than "corrupt".
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return corrupt(err)
	}
	if head.Version > Version {
		return State{}, &VersionError{Path: path, Found: head.Version}
	}
	if head.Version < 1 {
		return corrupt(fmt.Errorf("missing or invalid version %d", head.Version))
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return corrupt(err)
	}
	if err := validate(s); err != nil {
		return corrupt(err)
	}
	sortSpecs(s.Specs)
	return s, nil
}

// Save writes s to state.json atomically (see [WriteFileAtomic]) with the
// specs sorted by path. The caller's State is not modified. The .ralph
// directory must exist ([Dir.Ensure]).
func Save(dir Dir, s State) error {
	if err := validateHead(s); err != nil {
		return fmt.Errorf("save ralph-ci state: %w (this is a bug in ralph-ci)", err)
	}
	e := encoderFor(dir.StatePath())
	e.mu.Lock()
	defer e.mu.Unlock()
	out := s
	out.Version = Version
	// The paths of the last save, in its order, are sorted and unique.
	if !e.inOrder(s.Specs) {
		if err := validateSpecs(s.Specs); err != nil {
			return fmt.Errorf("save ralph-ci state: %w (this is a bug in ralph-ci)", err)
		}
		if !sorted(s.Specs) {
			out.Specs = slices.Clone(s.Specs) // the caller's State is not modified
			sortSpecs(out.Specs)
		}
	}
	data, err := e.encode(out)
	if err == nil {
		err = writeFileOrdered(dir.StatePath(), data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("save ralph-ci state: %w", err)
	}
	return nil
}

// Reset implements "ralph-ci reset": it does NOT clear spec states, it only
// resets counters and the iteration. Iteration, every DoneCount and every
// StuckCount become 0 (and so do StageIterations and Excluded), and what
// the loop decided about a spec goes with them: its same-reason rejection
// streak and its stuck mark. Path, LastStatus, LastHash, ModifiedFiles,
// ChangedFiles and the stage are kept, and
// so is the verifier guard's baseline: a verification file a rotation
// changed stays changed until it is restored or the criteria allow it. Rotations is kept because it numbers the history logs, which are
// kept: resetting it would overwrite history/{key}/001.log and so on.
//
// A pending rotation is discarded: its iteration refers to the state
// before the reset.
func Reset(s State) State {
	out := State{Version: Version, Iteration: 0, Specs: slices.Clone(s.Specs), Current: s.Current, LimitedAgents: s.LimitedAgents} // the pending rotation is discarded
	for i := range out.Specs {
		out.Specs[i].resetSpec()
	}
	return out
}

// ResetSpecs implements "ralph-ci reset SPEC...": what [Reset] does to a
// spec, for the specs at paths only; the iteration and the other specs
// are kept. A pending rotation of one of them is discarded. A path
// without a saved state is an error that lists the ones there are.
func ResetSpecs(s State, paths []string) (State, error) {
	out := s
	out.Specs = slices.Clone(s.Specs)
	for _, p := range paths {
		ss := out.Spec(p)
		if ss == nil {
			known := make([]string, len(s.Specs))
			for i, sp := range s.Specs {
				known[i] = sp.Path
			}
			return s, fmt.Errorf("reset %s: no spec of that path in the state (the specs it holds: %s)", p, strings.Join(known, ", "))
		}
		ss.resetSpec()
		if out.Pending != nil && out.Pending.Spec == p {
			out.Pending = nil
		}
	}
	return out, nil
}

// resetSpec is what reset does to one spec: counter 0/3, no STUCK in a
// row, its stage's iterations anew, back in the loop, no rejection streak
// and no stuck mark; its stage is kept.
func (s *SpecState) resetSpec() {
	s.DoneCount, s.StuckCount, s.StageIterations, s.Excluded = 0, 0, 0, ""
	s.RejectKey, s.RejectRepeats, s.StuckBy = "", 0, ""
}

// Spec returns a pointer to the entry of the spec at path, or nil if the
// spec has no saved state yet.
func (s *State) Spec(path string) *SpecState {
	for i := range s.Specs {
		if s.Specs[i].Path == path {
			return &s.Specs[i]
		}
	}
	return nil
}

// ByPath indexes the spec entries by path, for loops over many specs
// (Spec is a linear scan). The pointers are into s.Specs: valid until it
// is appended to, filtered or sorted.
func (s *State) ByPath() map[string]*SpecState {
	m := make(map[string]*SpecState, len(s.Specs))
	for i := range s.Specs {
		m[s.Specs[i].Path] = &s.Specs[i]
	}
	return m
}

// SpecOrNew returns the entry of the spec at path, adding an empty one
// (a spec that was never processed) when there is none.
func (s *State) SpecOrNew(path string) *SpecState {
	if ss := s.Spec(path); ss != nil {
		return ss
	}
	s.Specs = append(s.Specs, SpecState{Path: path})
	return &s.Specs[len(s.Specs)-1]
}

func validate(s State) error {
	if err := validateHead(s); err != nil {
		return err
	}
	return validateSpecs(s.Specs)
}

// validateHead checks what the state holds besides its specs.
func validateHead(s State) error {
	if s.Iteration < 0 {
		return fmt.Errorf("negative iteration %d", s.Iteration)
	}
	if r := s.Pending; r != nil {
		if r.Iteration != s.Iteration+1 || r.Spec == "" {
			return fmt.Errorf("pending rotation %d of %q does not follow iteration %d", r.Iteration, r.Spec, s.Iteration)
		}
		if len(r.Before) > 0 && !json.Valid(r.Before) {
			return fmt.Errorf("pending rotation %d: its baseline is not valid JSON", r.Iteration)
		}
	}
	return nil
}

// validateSpecs checks that every spec has a path, and a path of its own.
func validateSpecs(specs []SpecState) error {
	if sorted(specs) { // as saved: a duplicate is next to its twin
		for i, sp := range specs {
			if sp.Path == "" {
				return fmt.Errorf("a spec has an empty path")
			}
			if i > 0 && specs[i-1].Path == sp.Path {
				return fmt.Errorf("spec %q appears twice", sp.Path)
			}
		}
		return nil
	}
	seen := make(map[string]bool, len(specs))
	for _, sp := range specs {
		if sp.Path == "" {
			return fmt.Errorf("a spec has an empty path")
		}
		if seen[sp.Path] {
			return fmt.Errorf("spec %q appears twice", sp.Path)
		}
		seen[sp.Path] = true
	}
	return nil
}

// sorted tells whether specs are in the order Save writes them.
func sorted(specs []SpecState) bool {
	return slices.IsSortedFunc(specs, func(a, b SpecState) int { return strings.Compare(a.Path, b.Path) })
}

func sortSpecs(specs []SpecState) {
	slices.SortFunc(specs, func(a, b SpecState) int { return strings.Compare(a.Path, b.Path) })
}
