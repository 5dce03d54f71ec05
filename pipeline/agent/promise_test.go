package agent

import (
	"strings"
	"testing"
)

func TestPromise(t *testing.T) {
	tests := []struct {
		name, text string
		want       string
		found      bool
	}{
		{"simple", "x <promise>DONE</promise> y", "DONE", true},
		{"first match wins", "<promise>one</promise> <promise>two</promise>", "one", true},
		{"trimmed", "<promise>  all green \n</promise>", "all green", true},
		{"multiline", "<promise>\nline 1\nline 2\n</promise>", "line 1\nline 2", true},
		{"case-insensitive tags", "<PROMISE>Yes</Promise>", "Yes", true},
		{"text keeps its case", "<promise>MiXeD</PROMISE>", "MiXeD", true},
		{"unterminated", "<promise>never closed", "", false},
		{"unterminated then closed elsewhere is the first", "<promise>a <promise>b</promise>", "a <promise>b", true},
		{"empty tags need one byte", "<promise></promise>", "", false},
		{"python: TEXT starts with the close tag", "<promise></promise></promise>", "</promise>", true},
		{"whitespace only", "<promise> </promise>", "", true},
		{"near misses", "<promis>x</promise><promise >y</promise><<promise>z</promise>", "z", true},
		{"partial close tag is text", "<promise>a </promis b</promise>", "a </promis b", true},
		{"close tag restarts inside partial", "<promise>a </prom</promise>", "a </prom", true},
		{"none", "no tags here", "", false},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{0, 1, 2, 3} {
			r := scanChunks(t, "text", []byte(tt.text), seed)
			if r.Promise != tt.want || r.PromiseFound != tt.found {
				t.Errorf("%s (seed %d): %q, %v; want %q, %v", tt.name, seed, r.Promise, r.PromiseFound, tt.want, tt.found)
			}
		}
	}
}

// Every split point of the input: the tags and the text may be cut anywhere.
func TestPromiseSplitAnywhere(t *testing.T) {
	text := "intro <Promise>\n  the spec is met\n</PROMISE> outro <promise>second</promise>"
	for i := 0; i <= len(text); i++ {
		var s promiseScanner
		s.Write([]byte(text[:i]))
		s.Write([]byte(text[i:]))
		var r Report
		s.finish(&r)
		if !r.PromiseFound || r.Promise != "the spec is met" {
			t.Fatalf("split at %d: %q, %v", i, r.Promise, r.PromiseFound)
		}
	}
}

func TestPromiseCapped(t *testing.T) {
	long := strings.Repeat("é", MaxPromiseBytes) // 2 bytes each
	text := "<promise>" + strings.Repeat(" \n", 10000) + long + "</promise>"
	r := scan(t, "text", []byte(text))
	if !r.PromiseFound || len(r.Promise) != MaxPromiseBytes || !strings.HasPrefix(long, r.Promise) {
		t.Errorf("found %v, %d bytes", r.PromiseFound, len(r.Promise))
	}
}
