package state

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
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
	var walk func(v reflect.Value, name string)
	n := 0
	walk = func(v reflect.Value, name string) {
		for i := range v.NumField() {
			f, ft := v.Field(i), v.Type().Field(i)
			if ft.Anonymous && ft.Type.Kind() == reflect.Struct {
				walk(f, name+ft.Name+".")
				continue
			}
			n++
			mod := base
			mod.ChangedFiles = slices.Clone(base.ChangedFiles)
			mod.VerifierHashes, mod.VerifierSeen = maps.Clone(base.VerifierHashes), maps.Clone(base.VerifierSeen)
			cp := *base.Checkpoint
			mod.Checkpoint = &cp
			mf := reflect.ValueOf(&mod).Elem().FieldByIndex(append(indexOf(t, name), i))
			switch mf.Kind() {
			case reflect.String:
				mf.SetString(mf.String() + "x")
			case reflect.Int:
				mf.SetInt(mf.Int() + 1)
			case reflect.Float64:
				mf.SetFloat(mf.Float() + 1)
			case reflect.Bool:
				mf.SetBool(!mf.Bool())
			case reflect.Slice:
				mf.Set(reflect.Append(mf, reflect.New(mf.Type().Elem()).Elem()))
			case reflect.Map:
				mf.SetMapIndex(reflect.ValueOf("new"), reflect.ValueOf("v"))
			case reflect.Pointer:
				mod.Checkpoint.SHA += "x"
			case reflect.Struct: // spend.Amount
				mf.Field(0).SetFloat(mf.Field(0).Float() + 1)
			default:
				t.Fatalf("%s%s: a %s field; teach this test (and sameSpec) about it", name, ft.Name, mf.Kind())
			}
			if sameSpec(&base, &mod) {
				t.Errorf("sameSpec misses a change of %s%s", name, ft.Name)
			}
		}
	}
	walk(reflect.ValueOf(base), "")
	if n < 20 {
		t.Fatalf("only %d fields walked", n)
	}
	if !sameSpec(&base, &base) {
		t.Error("a spec differs from itself")
	}
}

// indexOf is the field index path of the embedded group named by prefix
// ("" for SpecState itself, "Counting." for its Counting group).
func indexOf(t *testing.T, prefix string) []int {
	if prefix == "" {
		return nil
	}
	f, ok := reflect.TypeOf(SpecState{}).FieldByName(strings.TrimSuffix(prefix, "."))
	if !ok {
		t.Fatalf("no group %s", prefix)
	}
	return f.Index
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
