package text

import (
	"fmt"
	"slices"
	"testing"
)

// TestLines: lines come out whole however the stream is cut into chunks,
// longer ones as their first Max bytes marked long, and the unterminated
// last one only at End.
func TestLines(t *testing.T) {
	const stream = "ab\n\nabcdef\nabcd\nxyz"
	want := []string{"ab false", " false", "abcd true", "abcd false", "xyz false"}
	for size := 1; size <= len(stream); size++ {
		l := Lines{Max: 4}
		var got []string
		end := func(line []byte, long bool) { got = append(got, fmt.Sprintf("%s %v", line, long)) }
		for i := 0; i < len(stream); i += size {
			l.Write([]byte(stream[i:min(i+size, len(stream))]), end)
		}
		if len(got) != 4 {
			t.Fatalf("chunks of %d: %d lines before End, want 4: %q", size, len(got), got)
		}
		l.End(end)
		if !slices.Equal(got, want) {
			t.Fatalf("chunks of %d: %q, want %q", size, got, want)
		}
	}
}

// A line that lies whole in one write is given without a copy, as a part
// of what was written; CR stays at the end of a CRLF line.
func TestLinesWholeInWrite(t *testing.T) {
	l := Lines{Max: 8}
	p := []byte("ab\r\n0123456789\nc")
	var got []string
	l.Write(p, func(line []byte, long bool) {
		if len(line) > 0 && &line[0] != &p[0] && &line[0] != &p[4] {
			t.Errorf("%q was copied", line)
		}
		got = append(got, fmt.Sprintf("%q %v", line, long))
	})
	if want := []string{`"ab\r" false`, `"01234567" true`}; !slices.Equal(got, want) {
		t.Fatalf("%q, want %q", got, want)
	}
}
