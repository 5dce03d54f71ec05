package state

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// plainEncode is state.json as one json.Encoder call writes it: the
// format the per-spec encoder must reproduce byte for byte.
func plainEncode(t testing.TB, s State) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// asSaved is s with every nil changed_files made empty, as Save writes
// it ("[]" rather than "null").
func asSaved(s State) State {
	s.Specs = slices.Clone(s.Specs)
	for i := range s.Specs {
		if s.Specs[i].ChangedFiles == nil {
			s.Specs[i].ChangedFiles = []string{}
		}
	}
	return s
}

// Saved again and again with changes made in place (through the caller's
// pointers, maps and slices), the state is always encoded exactly as a
// single json.Encoder would encode it.
func TestEncoderMatchesEncodingJSON(t *testing.T) {
	e := &encoder{}
	check := func(what string, s State) {
		t.Helper()
		got, err := e.encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := plainEncode(t, asSaved(s)); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	check("empty", State{Version: Version, Specs: []SpecState{}})
	s := goldenState()
	s.Version = Version
	check("golden", s)
	s.Specs[0].Checkpoint.RejectionLog = append(s.Specs[0].Checkpoint.RejectionLog, tiers.Rejection{Attempt: 1, Feedback: "<no>"})
	check("checkpoint changed through its pointer", s)
	s.Specs[0].VerifierSeen["check.sh"] = "cc"
	check("map changed in place", s)
	s.Specs[0].ChangedFiles[0] = "z.go"
	check("slice changed in place", s)
	s.Specs[1].VerifierHashes = map[string]string{}
	check("an empty map", s)
	check("an empty map, again", s)
	s.LimitedAgents = map[string]time.Time{"claude": time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC), "codex <b>": {}}
	check("limited agents", s)
	s.Current, s.Pending, s.LimitedAgents = "", nil, map[string]time.Time{}
	check("no current, nothing pending, no limited agent", s)
	s.Specs = s.Specs[1:]
	check("a spec removed", s)
	s.Specs = append(s.Specs, manySpecs(3).Specs...)
	check("specs added", s)
}

// sameSpec must see a change of any field of SpecState: each leaf field
// (through the embedded groups) is changed in turn on a copy.
func TestSameSpecSeesEveryField(t *testing.T) {
	base := goldenState().Specs[0]
	n := 0
	eachLeaf(reflect.ValueOf(base), func(_ reflect.Value, name string, index []int) {
		n++
		mod := base
		mod.ChangedFiles = slices.Clone(base.ChangedFiles)
		mod.VerifierHashes, mod.VerifierSeen = maps.Clone(base.VerifierHashes), maps.Clone(base.VerifierSeen)
		cp := *base.Checkpoint
		mod.Checkpoint = &cp
		mf := reflect.ValueOf(&mod).Elem().FieldByIndex(index)
		if !bump(mf) {
			switch mf.Kind() {
			case reflect.Slice:
				mf.Set(reflect.Append(mf, reflect.New(mf.Type().Elem()).Elem()))
			case reflect.Map:
				mf.SetMapIndex(reflect.ValueOf("new"), reflect.ValueOf("v"))
			case reflect.Pointer:
				mod.Checkpoint.SHA += "x"
			default:
				t.Fatalf("%s: a %s field; teach this test (and sameSpec) about it", name, mf.Kind())
			}
		}
		if sameSpec(&base, &mod) {
			t.Errorf("sameSpec misses a change of %s", name)
		}
	})
	if n < 20 {
		t.Fatalf("only %d fields walked", n)
	}
	if !sameSpec(&base, &base) {
		t.Error("a spec differs from itself")
	}
}

// eachLeaf calls fn with every leaf field of the struct v, through its
// embedded structs: the field, its name ("Counting.DoneCount" for one of
// an embedded group) and its index path from v.
func eachLeaf(v reflect.Value, fn func(f reflect.Value, name string, index []int)) {
	var walk func(v reflect.Value, prefix string, index []int)
	walk = func(v reflect.Value, prefix string, index []int) {
		for i := range v.NumField() {
			f, ft := v.Field(i), v.Type().Field(i)
			at := append(slices.Clone(index), i)
			if ft.Anonymous && ft.Type.Kind() == reflect.Struct {
				walk(f, prefix+ft.Name+".", at)
				continue
			}
			fn(f, prefix+ft.Name, at)
		}
	}
	walk(v, "", nil)
}

// bump changes f (settable) when it is of a kind every SpecState test
// changes alike, and tells whether it was: a string, an int, a float, a
// bool, or an amount (spend's, whose first field is a float).
func bump(f reflect.Value) bool {
	switch f.Kind() {
	case reflect.String:
		f.SetString(f.String() + "x")
	case reflect.Int:
		f.SetInt(f.Int() + 1)
	case reflect.Float64:
		f.SetFloat(f.Float() + 1)
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Struct:
		f.Field(0).SetFloat(f.Field(0).Float() + 1)
	default:
		return false
	}
	return true
}

// encode writes State's fields by hand: a field added to State must be
// added there (and to the list below) or state.json would lose it.
func TestEncoderKnowsEveryStateField(t *testing.T) {
	known := []string{"Version", "Iteration", "Specs", "Current", "Pending", "LimitedAgents", "Spend"}
	typ := reflect.TypeOf(State{})
	if typ.NumField() != len(known) {
		t.Fatalf("State has %d fields, encode writes %v: write the new one in encode.go", typ.NumField(), known)
	}
	for i, name := range known {
		if typ.Field(i).Name != name {
			t.Errorf("State field %d is %s, encode writes %s there", i, typ.Field(i).Name, name)
		}
	}
}
