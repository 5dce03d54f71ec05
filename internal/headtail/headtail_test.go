package headtail

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriter(t *testing.T) {
	type testCase struct {
		name       string
		head, tail int
		writes     []string
		want       string
	}
	run := func(t *testing.T, tc testCase) {
		var out bytes.Buffer
		w := New(&out, tc.head, tc.tail)
		total := 0
		for _, s := range tc.writes {
			n, err := w.Write([]byte(s))
			if err != nil || n != len(s) {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
			total += n
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != tc.want {
			t.Fatalf("got %q, want %q", got, tc.want)
		}
		if kept := min(total, tc.head+tc.tail); w.Cut() != int64(total-kept) {
			t.Fatalf("Cut() = %d, want %d", w.Cut(), total-kept)
		}
	}
	note := func(cut, head, tail string) string {
		return "\n[... ralph-ci cut " + cut + " bytes of output here: the log keeps the first " + head + " and the last " + tail + " bytes ...]\n"
	}
	for _, tc := range []testCase{
		{name: "under the bound", head: 4, tail: 4, writes: []string{"ab", "cd", "ef"}, want: "abcdef"},
		{name: "exactly the bound", head: 4, tail: 4, writes: []string{"abcdefgh"}, want: "abcdefgh"},
		{name: "one big write", head: 3, tail: 3, writes: []string{"abcdefghij"}, want: "abc" + note("4", "3", "3") + "hij"},
		{name: "many small writes wrap the ring", head: 2, tail: 3, writes: strings.Split("abcdefghijk", ""), want: "ab" + note("6", "2", "3") + "ijk"},
		{name: "no tail", head: 2, tail: 0, writes: []string{"abcd", "ef"}, want: "ab" + note("4", "2", "0")},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// The tail's buffer is made only when the head is full.
func TestTailBufferOnlyWhenNeeded(t *testing.T) {
	var out bytes.Buffer
	w := New(&out, 4, 1<<20)
	_, _ = w.Write([]byte("abcd"))
	if w.ring != nil {
		t.Errorf("a log within its head has a tail buffer of %d bytes", cap(w.ring))
	}
	_, _ = w.Write([]byte("ef"))
	if cap(w.ring) != 1<<20 {
		t.Errorf("tail buffer of %d bytes, want %d", cap(w.ring), 1<<20)
	}
	if err := w.Close(); err != nil || out.String() != "abcdef" {
		t.Errorf("Close: %v, log %q", err, out.String())
	}
}
