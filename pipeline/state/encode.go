package state

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/ralph-ci/ralph-ci/pipeline/usage"
)

// encoder writes state.json as json.Encoder with a two-space indent would,
// byte for byte (a spec's nil changed_files as "[]"), but encodes again only
// the entries that changed since the last save, and copies the others from
// the last encoding, which it keeps whole.
//
// An entry is reused when the spec equals (sameSpec) the copy of the spec
// it was encoded from: a deep copy (cloneSpec), so that no later change
// made through the caller's slices, maps or pointers can go unnoticed, whose
// strings are the caller's own (strings never change), so that comparing an
// unchanged spec reads no string's bytes. The copies and the entries'
// places in the last encoding are kept in the order of the last save: a
// save of the same specs in the same order (every save of a steady loop)
// compares each spec with the copy at its index, and tells the caller that
// the specs are sorted and unique without comparing their paths' bytes.
//
// What it earns (BenchmarkSave/10000: one spec changed per save, CPU of
// 300 saves in paired runs on 2 busy cores): 2.8 ms a save, of which 1.1
// ms is the kernel's write and flush of the 3.8 MB, against 6.3 ms when
// each entry was kept in a buffer of its own, found by path and compared
// string by string. BenchmarkEncode (1,000 specs): 0.09 ms against 3.1 ms
// for the whole encoding. bench/scale.sh's 10,000-spec line pays it once
// a rotation, where a rotation costs ralph-ci about 11 ms at one spec.
type encoder struct {
	mu    sync.Mutex
	specs []SpecState // copies of the specs of the last encoding, in its order
	spans []span      // where each one's entry lies in last
	last  []byte      // the last encoding
	// spare and spareSpans are the buffers of the encoding before last,
	// reused by the next one.
	spare      []byte
	spareSpans []span
}

// span is where an entry lies in an encoding, its indent included; off
// is -1 for a spec with no entry yet.
type span struct{ off, end int }

// encoders are the encoders of the state files saved by this process.
var encoders sync.Map // state path -> *encoder

func encoderFor(path string) *encoder {
	e, _ := encoders.LoadOrStore(path, &encoder{})
	return e.(*encoder)
}

// inOrder tells whether specs are those of the last encoding, by path and
// in the same order. e.mu must be held.
func (e *encoder) inOrder(specs []SpecState) bool {
	if len(specs) != len(e.specs) {
		return false
	}
	for i := range specs {
		if specs[i].Path != e.specs[i].Path { // the same string: its bytes are not read
			return false
		}
	}
	return true
}

// align puts the copies and spans of the last encoding in the order of
// specs, with no entry for a spec it did not hold. e.mu must be held.
func (e *encoder) align(specs []SpecState) {
	at := make(map[string]int, len(e.specs))
	for i := range e.specs {
		at[e.specs[i].Path] = i
	}
	copies, spans := make([]SpecState, len(specs)), make([]span, len(specs))
	for i := range specs {
		j, ok := at[specs[i].Path]
		if !ok {
			spans[i] = span{off: -1}
			continue
		}
		copies[i], spans[i] = e.specs[j], e.spans[j]
	}
	e.specs, e.spans = copies, spans
}

// encode returns the content of state.json for out, valid until the next
// call but one. e.mu must be held.
func (e *encoder) encode(out State) (data []byte, err error) {
	if !e.inOrder(out.Specs) {
		e.align(out.Specs)
	}
	defer func() {
		if err != nil { // copies may be ahead of last: start over next time
			e.specs, e.spans = nil, nil
		}
	}()
	b := e.spare[:0]
	spans := slices.Grow(e.spareSpans[:0], len(out.Specs))[:len(out.Specs)]
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(out.Version), 10)
	b = append(b, ",\n  \"iteration\": "...)
	b = strconv.AppendInt(b, int64(out.Iteration), 10)
	b = append(b, ",\n  \"specs\": "...)
	if len(out.Specs) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, "[\n"...)
		for i := range out.Specs {
			sp, cp, s := &out.Specs[i], &e.specs[i], e.spans[i]
			if i > 0 {
				b = append(b, ",\n"...)
			}
			start := len(b)
			if s.off >= 0 && sameSpec(cp, sp) {
				b = append(b, e.last[s.off:s.end]...)
			} else {
				v := *sp
				if v.ChangedFiles == nil {
					v.ChangedFiles = []string{} // "[]" rather than "null"
				}
				if b, err = appendIndented(append(b, "    "...), &v, "    "); err != nil {
					return nil, err
				}
				*cp = cloneSpec(sp)
			}
			spans[i] = span{start, len(b)}
		}
		b = append(b, "\n  ]"...)
	}
	if out.Current != "" {
		if b, err = appendIndented(append(b, ",\n  \"current\": "...), out.Current, "  "); err != nil {
			return nil, err
		}
	}
	if out.Pending != nil {
		if b, err = appendIndented(append(b, ",\n  \"pending\": "...), out.Pending, "  "); err != nil {
			return nil, err
		}
	}
	if len(out.LimitedAgents) > 0 {
		if b, err = appendIndented(append(b, ",\n  \"limited_agents\": "...), out.LimitedAgents, "  "); err != nil {
			return nil, err
		}
	}
	if out.Spend != (usage.Amount{}) {
		if b, err = appendIndented(append(b, ",\n  \"spend\": "...), out.Spend, "  "); err != nil {
			return nil, err
		}
	}
	b = append(b, "\n}\n"...)
	e.spare, e.last = e.last, b
	e.spareSpans, e.spans = e.spans, spans
	return b, nil
}

// sameSpec tells whether a and b encode alike. Its test sets every field
// of SpecState in turn, so a field added without being compared here
// fails it.
func sameSpec(a, b *SpecState) bool {
	ca, cb := &a.Counting, &b.Counting
	return a.Path == b.Path && a.Sharding == b.Sharding && a.Spending == b.Spending && a.Staging == b.Staging && a.Tasks == b.Tasks && a.ReviewLoop == b.ReviewLoop &&
		ca.DoneCount == cb.DoneCount && ca.LastStatus == cb.LastStatus && ca.LastHash == cb.LastHash &&
		ca.ModifiedFiles == cb.ModifiedFiles && ca.Rotations == cb.Rotations && ca.StuckCount == cb.StuckCount && ca.SeenHash == cb.SeenHash &&
		(ca.ChangedFiles == nil) == (cb.ChangedFiles == nil) && slices.Equal(ca.ChangedFiles, cb.ChangedFiles) &&
		a.VerifierKey == b.VerifierKey && a.VerifierTree == b.VerifierTree &&
		(a.VerifierTests == nil) == (b.VerifierTests == nil) && slices.Equal(a.VerifierTests, b.VerifierTests) &&
		(a.VerifierHashes == nil) == (b.VerifierHashes == nil) && maps.Equal(a.VerifierHashes, b.VerifierHashes) &&
		(a.VerifierSeen == nil) == (b.VerifierSeen == nil) && maps.Equal(a.VerifierSeen, b.VerifierSeen) &&
		(a.Checkpoint == nil) == (b.Checkpoint == nil) && (a.Checkpoint == nil || reflect.DeepEqual(*a.Checkpoint, *b.Checkpoint))
}

// cloneSpec is a copy of s that shares no slice, map or pointer with it
// (its strings are shared: they never change). Its test fills every field
// and fails on a new one shared with s.
func cloneSpec(s *SpecState) SpecState {
	c := *s
	c.ChangedFiles = slices.Clone(s.ChangedFiles)
	c.VerifierTests = slices.Clone(s.VerifierTests)
	c.VerifierHashes = maps.Clone(s.VerifierHashes)
	c.VerifierSeen = maps.Clone(s.VerifierSeen)
	if s.Checkpoint != nil {
		cp := *s.Checkpoint
		cp.RejectionLog = slices.Clone(cp.RejectionLog)
		c.Checkpoint = &cp
	}
	return c
}

// appendIndented appends v as json.Encoder writes it nested at prefix,
// without the final newline.
func appendIndented(b []byte, v any, prefix string) ([]byte, error) {
	w := bytes.NewBuffer(b)
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(w.Bytes(), []byte("\n")), nil
}
