package agent

import (
	"bytes"
	"math/bits"
)

// jsonSplitter cuts a stream into JSON documents and the lines around them,
// for output that mixes JSON (JSONL events, or one pretty-printed object)
// with plain lines (stderr noise such as "Loaded cached credentials.").
//
// A document starts with '{' or '[' at the start of a line and ends where
// its brackets balance, which it finds by tracking strings and escapes; it
// may span lines. Complete documents go to onDoc, everything else to
// onLine as it comes (consecutive plain lines in one call). A document is
// given up when
//
//   - a raw newline occurs inside a string (not JSON);
//   - a '{' or '[' starts a line before it ended: JSON.stringify and JSONL
//     never do that, so the previous document was cut off;
//   - the output ends.
//
// A document longer than max is not kept: it is tracked to its end without
// buffering, then dropped. Its memory is bounded by max.
type jsonSplitter struct {
	max    int
	onDoc  func(doc []byte)
	onLine func(p []byte)

	lineStart bool // the next byte starts a line
	inDoc     bool
	inStr     bool
	esc       bool
	overflow  bool
	depth     int
	buf       []byte
}

// keepBuf is the largest buffer kept between documents.
const keepBuf = 1 << 20

func newJSONSplitter(max int, onDoc func([]byte), onLine func([]byte)) *jsonSplitter {
	return &jsonSplitter{max: max, onDoc: onDoc, onLine: onLine, lineStart: true}
}

func (s *jsonSplitter) Write(p []byte) {
	for len(p) > 0 {
		if s.inDoc {
			p = s.doc(p)
			continue
		}
		if s.lineStart && (p[0] == '{' || p[0] == '[') {
			s.inDoc, s.depth, s.inStr, s.esc, s.overflow = true, 0, false, false, false
			continue
		}
		// The plain lines up to one that starts a document go out at once.
		end := 0
		for {
			i := bytes.IndexByte(p[end:], '\n')
			if i < 0 {
				end, s.lineStart = len(p), false
				break
			}
			end, s.lineStart = end+i+1, true
			if end == len(p) || p[end] == '{' || p[end] == '[' {
				break
			}
		}
		s.onLine(p[:end])
		p = p[end:]
	}
}

// doc consumes bytes of the current document and returns the rest of p.
func (s *jsonSplitter) doc(p []byte) []byte {
	for i := 0; i < len(p); i++ {
		if s.inStr {
			if !s.esc {
				j := bytes.IndexAny(p[i:], "\"\\\n")
				if j < 0 {
					break
				}
				i += j
			}
			switch c := p[i]; {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
			case c == '\n':
				s.lineStart = true
				s.end(false)
				return p[i+1:]
			}
			continue
		}
		c := p[i]
		if s.lineStart && s.depth > 0 && (c == '{' || c == '[') {
			s.end(false)
			return p[i:] // starts the next document
		}
		s.lineStart = c == '\n'
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 0 {
				s.append(p[:i+1])
				s.end(true)
				return p[i+1:]
			}
		}
	}
	s.append(p)
	return nil
}

// append adds b to the document, unless it outgrew max.
func (s *jsonSplitter) append(b []byte) {
	if s.overflow {
		return
	}
	n := len(s.buf) + len(b)
	if n > s.max {
		s.overflow, s.buf = true, nil
		return
	}
	if n > cap(s.buf) {
		// Powers of two: in all at most 2×max is allocated for a document,
		// and at most 1.5×max is live (while copying into the last buffer).
		grown := make([]byte, len(s.buf), min(s.max, 1<<bits.Len(uint(n-1))))
		copy(grown, s.buf)
		s.buf = grown
	}
	s.buf = append(s.buf, b...)
}

// end closes the current document, giving it to onDoc when complete.
func (s *jsonSplitter) end(complete bool) {
	if complete && !s.overflow {
		s.onDoc(s.buf)
	}
	s.inDoc, s.inStr, s.esc = false, false, false
	if cap(s.buf) > keepBuf {
		s.buf = nil
	}
	s.buf = s.buf[:0]
}

// finish drops a document the output ended in.
func (s *jsonSplitter) finish() {
	if s.inDoc {
		s.end(false)
	}
}
