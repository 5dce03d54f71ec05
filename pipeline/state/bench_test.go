package state

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// manySpecs is a state of n specs, each with what a few rotations leave.
func manySpecs(n int) State {
	s := State{Version: Version, Iteration: 3 * n}
	for i := range n {
		var ss SpecState
		ss.Path = fmt.Sprintf("specs/s%05d.spec.md", i)
		ss.DoneCount, ss.LastStatus, ss.LastHash = 2, "DONE", "3f2a9c0b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8"
		ss.ModifiedFiles, ss.ChangedFiles, ss.Rotations = true, []string{"src/a.go", "src/a_test.go"}, 3
		ss.Stage, ss.TaskKey, ss.TaskIndex, ss.TaskStage = "coder", ss.LastHash, 2, "coder"
		s.Specs = append(s.Specs, ss)
	}
	return s
}

// BenchmarkSave is the save of every rotation, at 1,000 and 10,000 specs,
// one of them changed, the write and its flush included.
func BenchmarkSave(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := Dir(b.TempDir())
			if err := dir.Ensure(); err != nil {
				b.Fatal(err)
			}
			s := manySpecs(n)
			for b.Loop() {
				s.Specs[0].Rotations++ // one spec changes per rotation
				if err := Save(dir, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncode compares encoding state.json at 1000 specs, one changed
// per save, whole (as before) and entry by entry.
func BenchmarkEncode(b *testing.B) {
	s := manySpecs(1000)
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			s.Specs[0].Rotations++
			plainEncode(b, s)
		}
	})
	b.Run("by-entry", func(b *testing.B) {
		e := &encoder{}
		for b.Loop() {
			s.Specs[0].Rotations++
			if _, err := e.encode(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWriteState compares the two ways of replacing state.json of
// 1,000 specs: the spare swapped in (writeFileOrdered) and a new
// temporary file renamed over it, each fsynced.
func BenchmarkWriteState(b *testing.B) {
	data, err := (&encoder{}).encode(manySpecs(1000))
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Clone(data)
	b.Run("spare", func(b *testing.B) {
		p := filepath.Join(b.TempDir(), "state.json")
		for b.Loop() {
			if err := writeFileOrdered(p, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("temp-rename", func(b *testing.B) {
		dir := b.TempDir()
		p := filepath.Join(dir, "state.json")
		for b.Loop() {
			tmp, err := writeTemp(dir, ".state.json.tmp-*", data, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
