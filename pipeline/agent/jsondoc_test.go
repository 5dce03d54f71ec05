package agent

import (
	"bytes"
	"strings"
	"testing"
)

// split runs a jsonSplitter over in, written in pieces of n bytes.
func split(in string, max, n int) (docs []string, lines string) {
	var b strings.Builder
	s := newJSONSplitter(max,
		func(d []byte) { docs = append(docs, string(d)) },
		func(p []byte) { b.Write(p) })
	for p := []byte(in); len(p) > 0; {
		k := min(n, len(p))
		s.Write(p[:k])
		p = p[k:]
	}
	s.finish()
	return docs, b.String()
}

func TestJSONSplitter(t *testing.T) {
	tests := []struct {
		name, in string
		docs     []string
		lines    string
	}{
		{"jsonl", "{\"a\":1}\n{\"b\":\"}{\"}\n", []string{`{"a":1}`, `{"b":"}{"}`}, "\n\n"},
		{"noise around", "Loaded cached credentials.\n{\"a\":[1,{\"b\":2}]}\nbye", []string{`{"a":[1,{"b":2}]}`}, "Loaded cached credentials.\n\nbye"},
		{"pretty", "{\n  \"r\": \"x\\n\\\"y\\\\\",\n  \"s\": {\n    \"t\": [1]\n  }\n}\n", []string{"{\n  \"r\": \"x\\n\\\"y\\\\\",\n  \"s\": {\n    \"t\": [1]\n  }\n}"}, "\n"},
		{"array", "[{\"type\":\"result\"}]\n", []string{`[{"type":"result"}]`}, "\n"},
		{"not at line start", "log {\"a\":1}\n", nil, "log {\"a\":1}\n"},
		{"cut off by a new document", "{\"a\":\"tru\n{\"b\":2}\n", []string{`{"b":2}`}, "\n"},
		{"truncated line then next", "{\"a\":[1,2\n{\"b\":2}\n", []string{`{"b":2}`}, "\n"},
		{"ends inside", "{\"a\":1", nil, ""},
		{"brace in string does not end", "{\"a\":\"}\"}x\n", []string{`{"a":"}"}`}, "x\n"},
		{"escaped quote", `{"a":"\"}"}` + "\n", []string{`{"a":"\"}"}`}, "\n"},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 7, 1 << 20} {
			docs, lines := split(tt.in, 1<<20, n)
			if strings.Join(docs, "|") != strings.Join(tt.docs, "|") || lines != tt.lines {
				t.Errorf("%s (pieces of %d): docs %q lines %q; want %q %q", tt.name, n, docs, lines, tt.docs, tt.lines)
			}
		}
	}
}

// A document larger than max is skipped without growing past max, and the
// next one is read.
func TestJSONSplitterOverflow(t *testing.T) {
	const limit = 4 << 10
	big := "{\"a\":\"" + strings.Repeat("x", 1<<20) + "\"}\n"
	var peak int
	var docs []string
	s := newJSONSplitter(limit, func(d []byte) { docs = append(docs, string(d)) }, func([]byte) {})
	in := []byte(big + "{\"b\":1}\n")
	for len(in) > 0 {
		k := min(1000, len(in))
		s.Write(in[:k])
		in = in[k:]
		peak = max(peak, cap(s.buf))
	}
	if len(docs) != 1 || docs[0] != `{"b":1}` {
		t.Errorf("docs %q", docs)
	}
	if peak > limit {
		t.Errorf("buffer grew to %d bytes, limit %d", peak, limit)
	}
	if n := testing.AllocsPerRun(1, func() {
		s := newJSONSplitter(limit, func([]byte) {}, func([]byte) {})
		s.Write(bytes.Repeat([]byte("["), 1<<20))
	}); n > 20 {
		t.Errorf("%v allocations for a huge unfinished document", n)
	}
}
