package state

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// fullSpec is goldenState's first spec with every field set, every slice
// and map non-empty, so that a change can be made inside each of them.
func fullSpec() SpecState {
	s := goldenState().Specs[0]
	s.SeenHash, s.VerifierTree, s.VerifierTests = "5e5e", "7ree", []string{"TestA"}
	s.Shard, s.Seconds = "1-of-2", 12.5
	s.Spend.USD, s.RejectKey, s.RejectRepeats, s.StuckBy = 0.5, "no tests", 2, "breaker"
	s.VerificationPasses = 1
	s.Checkpoint.RejectionLog = []tiers.Rejection{{Attempt: 1, Feedback: "no"}}
	return s
}

// savedFile saves s into dir and returns state.json.
func savedFile(t *testing.T, dir Dir, s State) []byte {
	t.Helper()
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dir.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A save encodes again only the specs that changed since the last one:
// the others are copied from the last encoding, byte for byte. The test
// spoils the kept encoding of an unchanged spec to see it copied, not
// encoded again, while the changed spec's new value is written.
func TestSaveEncodesOnlyTheChangedSpecs(t *testing.T) {
	dir := Dir(t.TempDir())
	s := manySpecs(3)
	first := savedFile(t, dir, s)
	e := encoderFor(dir.StatePath())
	kept := e.spans[2]
	entry := e.last[kept.off:kept.end]
	if !bytes.Contains(first, entry) {
		t.Fatalf("the kept entry of %s is not in state.json", s.Specs[2].Path)
	}
	marked := bytes.Replace(entry, []byte(`"coder"`), []byte(`"KEPT!"`), 1)
	copy(entry, marked) // same length: the kept encoding now tells itself apart

	s.Specs[0].Rotations = 41
	got := savedFile(t, dir, s)
	if !bytes.Contains(got, []byte(`"rotations": 41`)) {
		t.Errorf("the changed spec was not written:\n%s", got)
	}
	if !bytes.Contains(got, marked) {
		t.Errorf("the unchanged spec was encoded again rather than copied:\n%s", got)
	}
	if n := bytes.Count(got, []byte("KEPT!")); n != 1 {
		t.Errorf("%d entries copied from the spoiled one, want 1", n)
	}

	// Without the spoiling, the file is what one json.Encoder writes.
	kept = e.spans[2]
	entry = e.last[kept.off:kept.end] // the copy of the spoiled entry in the new encoding
	copy(entry, bytes.Replace(entry, []byte(`"KEPT!"`), []byte(`"coder"`), 1))
	s.Specs[1].Rotations = 42
	if got := savedFile(t, dir, s); !bytes.Equal(got, plainEncode(t, s)) {
		t.Errorf("state.json:\n%s\nwant\n%s", got, plainEncode(t, s))
	}
}

// Every change the caller makes between two saves is written, whatever
// field it is in and however it is made: a field set anew, or a slice's
// element, a map's value or the checkpoint changed in place through what
// the caller kept (the copy a save keeps must share none of them). A new
// field of SpecState of a kind the test does not know fails it.
func TestSaveSeesEveryChangeInPlace(t *testing.T) {
	dir := Dir(t.TempDir())
	var b SpecState
	b.Path, b.LastStatus = "specs/b.spec.md", "NONE"
	s := State{Version: Version, Iteration: 1, Specs: []SpecState{fullSpec(), b}}
	savedFile(t, dir, s)
	n := 0
	eachLeaf(reflect.ValueOf(&s.Specs[0]).Elem(), func(f reflect.Value, what string, _ []int) {
		n++
		if !bump(f) {
			switch f.Kind() {
			case reflect.Slice: // in place: the slice itself is the caller's old one
				f.Index(0).Set(reflect.ValueOf("changed-in-place"))
			case reflect.Map:
				for _, k := range f.MapKeys() {
					f.SetMapIndex(k, reflect.ValueOf("changed-in-place"))
				}
			case reflect.Pointer: // the checkpoint, through its pointer and its log
				s.Specs[0].Checkpoint.SHA += "x"
				got := savedFile(t, dir, s)
				if want := plainEncode(t, asSaved(s)); !bytes.Equal(got, want) {
					t.Errorf("a change of %s.SHA is not saved", what)
				}
				s.Specs[0].Checkpoint.RejectionLog[0].Feedback = "changed-in-place"
			default:
				t.Fatalf("%s: a %s field; teach this test, sameSpec and cloneSpec about it", what, f.Kind())
			}
		}
		got := savedFile(t, dir, s)
		if want := plainEncode(t, asSaved(s)); !bytes.Equal(got, want) {
			t.Errorf("a change of %s is not saved:\n%s", what, got)
		}
	})
	if n < 30 {
		t.Fatalf("only %d fields walked", n)
	}
	if !strings.Contains(string(savedFile(t, dir, s)), "changed-in-place") {
		t.Error("no change in place was made")
	}
}

// cloneSpec shares no slice, map or pointer with the spec it copies, so
// that a change made in place through them later is seen. Every field of
// a reference kind is checked, so one added without being cloned fails.
func TestCloneSpecSharesNothing(t *testing.T) {
	s := fullSpec()
	c := cloneSpec(&s)
	var walk func(a, b reflect.Value, name string)
	walk = func(a, b reflect.Value, name string) {
		for i := range a.NumField() {
			fa, fb, ft := a.Field(i), b.Field(i), a.Type().Field(i)
			switch fa.Kind() {
			case reflect.Struct:
				walk(fa, fb, name+ft.Name+".")
			case reflect.Slice, reflect.Map, reflect.Pointer:
				if fa.IsNil() {
					t.Errorf("%s%s is not set: set it in fullSpec", name, ft.Name)
				} else if fa.UnsafePointer() == fb.UnsafePointer() {
					t.Errorf("the copy shares %s%s", name, ft.Name)
				}
				if fa.Kind() == reflect.Pointer && !fa.IsNil() {
					walk(fa.Elem(), fb.Elem(), name+ft.Name+".")
				}
			case reflect.Interface, reflect.Chan, reflect.Func, reflect.Array:
				t.Errorf("%s%s: a %s field; teach cloneSpec and this test about it", name, ft.Name, fa.Kind())
			}
		}
	}
	walk(reflect.ValueOf(s), reflect.ValueOf(c), "")
	if !sameSpec(&s, &c) {
		t.Error("the copy differs from the spec")
	}
}
