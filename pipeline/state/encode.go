package state

import (
	"bytes"
	"encoding/json"
	"github.com/ralph-ci/ralph-ci/pipeline/usage"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
)

// encoder writes state.json as json.Encoder with a two-space indent would,
// byte for byte, but keeps each spec's encoded entry and encodes again only
// the entries that changed since the last save: at a thousand specs the
// whole matrix was re-encoded (and re-indented) every rotation.
//
// An entry is reused when the spec equals (sameSpec) a private copy of
// the spec it was encoded from, decoded from that very encoding, so that
// no later change made through the caller's slices, maps or pointers can
// go unnoticed. A spec whose decoded copy differs from it (an empty rather
// than absent map, say) is simply encoded every time.
//
// What it earns (BenchmarkEncode, 1,000 specs, one changed per save, on 2
// busy cores): 0.5 ms a save against 28 ms for the whole encoding. That
// is under 1% of a real agent's rotation, but the scale target (1,000
// specs cost at most twice one spec per rotation, bench/scale.sh, where
// ralph-ci's own cost is about 10 ms a rotation) does not hold without
// it, so it stays.
type encoder struct {
	mu      sync.Mutex
	entries map[string]*entry // by spec path
	buf     bytes.Buffer      // the last encoding, its memory reused
	gen     int               // of the last encoding
}

type entry struct {
	spec SpecState
	json []byte
	gen  int // the encoding that last used it
}

// encoders are the encoders of the state files saved by this process.
var encoders sync.Map // state path -> *encoder

func encoderFor(path string) *encoder {
	e, _ := encoders.LoadOrStore(path, &encoder{})
	return e.(*encoder)
}

// save encodes out (its specs sorted) and gives the content of state.json
// to write, which must not keep it.
func (e *encoder) save(out State, write func([]byte) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	data, err := e.encode(out)
	if err != nil {
		return err
	}
	return write(data)
}

// encode returns the content of state.json for out (its specs sorted),
// valid until the next call. e.mu must be held.
func (e *encoder) encode(out State) ([]byte, error) {
	if e.entries == nil {
		e.entries = make(map[string]*entry, len(out.Specs))
	}
	e.gen++
	b := &e.buf
	b.Reset()
	b.WriteString("{\n  \"version\": " + strconv.Itoa(out.Version) + ",\n  \"iteration\": " + strconv.Itoa(out.Iteration) + ",\n  \"specs\": ")
	if len(out.Specs) == 0 {
		b.WriteString("[]")
	} else {
		b.WriteString("[\n")
		for i := range out.Specs {
			sp := &out.Specs[i]
			en := e.entries[sp.Path]
			if en == nil || !sameSpec(&en.spec, &out.Specs[i]) {
				raw, err := indented(sp, "    ")
				if err != nil {
					return nil, err
				}
				en = &entry{json: raw}
				if err := json.Unmarshal(raw, &en.spec); err != nil {
					return nil, err
				}
				e.entries[sp.Path] = en
			}
			en.gen = e.gen
			b.WriteString("    ")
			b.Write(en.json)
			if i < len(out.Specs)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ]")
	}
	if len(e.entries) > len(out.Specs) { // forget the specs that went away
		maps.DeleteFunc(e.entries, func(_ string, en *entry) bool { return en.gen != e.gen })
	}
	if out.Current != "" {
		raw, err := indented(out.Current, "  ")
		if err != nil {
			return nil, err
		}
		b.WriteString(",\n  \"current\": ")
		b.Write(raw)
	}
	if out.Pending != nil {
		raw, err := indented(out.Pending, "  ")
		if err != nil {
			return nil, err
		}
		b.WriteString(",\n  \"pending\": ")
		b.Write(raw)
	}
	if len(out.LimitedAgents) > 0 {
		raw, err := indented(out.LimitedAgents, "  ")
		if err != nil {
			return nil, err
		}
		b.WriteString(",\n  \"limited_agents\": ")
		b.Write(raw)
	}
	if out.Spend != (usage.Amount{}) {
		raw, err := indented(out.Spend, "  ")
		if err != nil {
			return nil, err
		}
		b.WriteString(",\n  \"spend\": ")
		b.Write(raw)
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
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

// indented is v as json.Encoder writes it nested at prefix, without the
// final newline.
func indented(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
